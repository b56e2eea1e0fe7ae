-- Claims a lookup key (an email's user index, store/users.ts) for an id: set when free, or when it
-- still holds the id of a claim found dangling (its owner record never written: a crash between
-- the two single-slot steps of a sign-up, docs/architecture.md "Redis Cluster").
-- KEYS: 1 the lookup key. ARGV: 1 the new id, 2 the dangling id it may replace ('' for none).
-- Returns 1 claimed, 0 held by another id.
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1
