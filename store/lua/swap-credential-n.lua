-- Replaces a device credential in one atomic step (store/lua/swap-credential.ts): the old lookup
-- key goes, the new one is set, and the device hash records the new hash (plus any extra fields).
-- With a staged field (ARGV[5]), only a new hash staged there earlier is taken, and the staged
-- field is cleared: a regenerate-token commits only the token it staged itself.
-- Key count: 1 declared; the two lookup keys (old and new hash) are derived inside from ARGV[3],
-- because the old hash is only known inside Redis.
-- KEYS: 1 device:{id}. ARGV: 1 hash field, 2 new hash, 3 lookup key template ({hash}), 4 device id,
-- 5 staged field ('' for none), 6.. field, value.
-- Returns 1 swapped, 0 the device is gone, -1 the staged field does not hold the new hash.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[5] ~= '' then
  if redis.call('HGET', KEYS[1], ARGV[5]) ~= ARGV[2] then return -1 end
  redis.call('HDEL', KEYS[1], ARGV[5])
end
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then redis.call('DEL', (string.gsub(ARGV[3], '{hash}', old))) end
redis.call('SET', (string.gsub(ARGV[3], '{hash}', ARGV[2])), ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
