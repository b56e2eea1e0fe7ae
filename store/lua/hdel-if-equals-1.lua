-- Deletes a hash field only while it holds the given value (store/devices.ts dropStagedToken).
-- KEYS: 1 the hash. ARGV: 1 field, 2 the value it must hold.
-- Returns 1 deleted, 0 it holds something else (or nothing).
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
return redis.call('HDEL', KEYS[1], ARGV[1])
