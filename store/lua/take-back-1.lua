-- Takes back one request a window counter (rate-limit-n.lua) counted and a later check then refused,
-- or a login that succeeded (store/window-counter.ts).
-- KEYS: 1 the counter (of the window the request was counted in). A counter that expired meanwhile
-- is left alone (a DECR would recreate it without expiry). Returns 1.
if tonumber(redis.call('GET', KEYS[1]) or '0') > 0 then redis.call('DECR', KEYS[1]) end
return 1
