-- Takes back one counted login attempt (store/login-throttle.ts): a login that succeeded, or one the
-- other counter refused after this one counted it.
-- KEYS: 1 the counter (of the window the attempt was counted in). A counter that expired meanwhile
-- is left alone (a DECR would recreate it without expiry). Returns 1.
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 1
