-- One fixed-window login counter (store/login-throttle.ts): the account's and the address's are in
-- different slots, so each is its own step (docs/architecture.md "Redis Cluster").
-- KEYS: 1 the counter. ARGV: 1 its limit, 2 its expiry (Unix s).
-- Returns 1 counted, 0 refused (full; not counted).
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then return 0 end
if redis.call('INCR', KEYS[1]) == 1 then redis.call('EXPIREAT', KEYS[1], ARGV[2]) end
return 1
