-- Sets fields of a hash only while its owner (a device, a project, the hash itself) exists, so a
-- write racing a delete cannot leave an orphan or resurrect a record (store/lua/hset-if-exists.ts).
-- KEYS: 1 the owner that must exist, 2 the hash to write. ARGV: field, value, ...
-- Returns 1 written, 0 the owner is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV))
return 1
