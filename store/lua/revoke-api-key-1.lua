-- Revokes a key of this user (store/api-keys.ts): the record goes first, in its own slot, so the
-- key stops working at once (resolving a secret needs the record); its by-hash index and the
-- user's set entry are removed in the steps after (docs/architecture.md "Redis Cluster").
-- KEYS: 1 apikey:{id}. ARGV: 1 user id.
-- Returns the key's hash when revoked, 0 when the user has no such key.
if redis.call('HGET', KEYS[1], 'userId') ~= ARGV[1] then return 0 end
local hash = redis.call('HGET', KEYS[1], 'hash')
redis.call('DEL', KEYS[1])
return hash
