-- Revokes a key of this user (store/api-keys.ts).
-- KEYS: 1 apikey:{id}, 2 user:{uid}:apikeys; the by-hash lookup key is derived inside (ARGV[3] .. hash),
-- because the hash is only known inside Redis. ARGV: 1 user id, 2 key id, 3 the by-hash lookup key without its hash.
-- Returns 1 revoked, 0 the user has no such key.
if redis.call('HGET', KEYS[1], 'userId') ~= ARGV[1] then return 0 end
local hash = redis.call('HGET', KEYS[1], 'hash')
redis.call('DEL', KEYS[1], ARGV[3] .. hash)
redis.call('SREM', KEYS[2], ARGV[2])
return 1
