-- Replaces a device credential in one atomic step (store/lua/swap-credential.ts): the old lookup
-- key goes, the new one is set, and the device hash records the new hash (plus any extra fields).
-- Key count: 1 declared; the two lookup keys (old and new hash) are derived inside from ARGV[3],
-- because the old hash is only known inside Redis.
-- KEYS: 1 device:{id}. ARGV: 1 hash field, 2 new hash, 3 lookup key template ({hash}), 4 device id, 5.. field, value.
-- Returns 1 swapped, 0 the device is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then redis.call('DEL', (string.gsub(ARGV[3], '{hash}', old))) end
redis.call('SET', (string.gsub(ARGV[3], '{hash}', ARGV[2])), ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
