-- A quota's check and the slot it takes, in one atomic step (store/quota-ledger.ts): adds a member
-- to a set only while the set holds fewer than the limit, so two concurrent creates cannot both
-- take the last slot. The set is the index a create writes first (docs/architecture.md "Redis
-- Cluster"), and its delete removes the member last.
-- KEYS: 1 the set. ARGV: 1 the member, 2 the limit (0: none).
-- Returns {1, members after} added (or there already), {0, members} refused: the set is full.
local used = redis.call('SCARD', KEYS[1])
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, used} end
local limit = tonumber(ARGV[2])
if limit > 0 and used >= limit then return {0, used} end
redis.call('SADD', KEYS[1], ARGV[1])
return {1, used + 1}
