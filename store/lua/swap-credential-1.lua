-- Replaces a device credential in the device's slot (store/lua/swap-credential.ts): the device hash
-- records the new hash (plus any extra fields). The lookup keys are their own slots: the new one is
-- set before this step and the old one deleted after it; a lookup counts only while the device
-- holds its hash, so the old credential stops working exactly when this step commits.
-- With a staged field (ARGV[3]), only a new hash staged there earlier is taken, and the staged
-- field is cleared: a regenerate-token commits only the token it staged itself.
-- KEYS: 1 device:{id}. ARGV: 1 hash field, 2 new hash, 3 staged field ('' for none), 4.. field, value.
-- Returns {1, the old hash or ''} swapped, {0} the device is gone, {-1} the staged field does not hold the new hash.
if redis.call('EXISTS', KEYS[1]) == 0 then return {0} end
if ARGV[3] ~= '' then
  if redis.call('HGET', KEYS[1], ARGV[3]) ~= ARGV[2] then return {-1} end
  redis.call('HDEL', KEYS[1], ARGV[3])
end
local old = redis.call('HGET', KEYS[1], ARGV[1]) or ''
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return {1, old}
