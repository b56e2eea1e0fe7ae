-- A login whose password was right (store/login-throttle.ts): resets the account's count and takes
-- back the attempt that rate-limit-2.lua counted against the address before the check.
-- KEYS: 1 the account's counter, 2 the address's counter (both of the window the attempt was counted in)
-- A counter that expired meanwhile is left alone (a DECR would recreate it without expiry).
redis.call('DEL', KEYS[1])
if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
return 1
