-- Removes a kept command only if it is still the one that was delivered (store/pending-commands.ts).
-- KEYS: 1 device:{id}:pending. ARGV: 1 pin, 2 the JSON delivered. Returns 1 removed, 0 a newer value came.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
return redis.call('HDEL', KEYS[1], ARGV[1])
