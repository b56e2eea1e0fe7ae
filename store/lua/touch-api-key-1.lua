-- Records that a live key was used, at most once per period (store/api-keys.ts).
-- KEYS: 1 apikey:{id}. ARGV: 1 now (ISO), 2 now minus the period (ISO). Returns 1 touched, 0 not.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local last = redis.call('HGET', KEYS[1], 'lastUsedAt')
if last and last > ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[1])
return 1
