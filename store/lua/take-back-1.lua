-- Takes back one counted login attempt (store/login-throttle.ts): a login that succeeded, or one the
-- other counter refused after this one counted it; and one external request the rate limit counted
-- and the checks then refused (store/rate-limits.ts takeBack, its minute and its day counter).
-- KEYS: 1 the counter (of the window the attempt was counted in). A counter that expired meanwhile
-- is left alone (a DECR would recreate it without expiry). Returns 1.
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 1
