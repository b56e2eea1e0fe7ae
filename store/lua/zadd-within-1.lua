-- A quota's check and the slot it takes, in one atomic step (store/quota-ledger.ts): adds a member
-- to a sorted set only while it holds fewer than the limit, so two concurrent creates cannot both
-- take the last slot. The set is an account's ledger of what it owns in other slots, written
-- first on create and cleared last on delete (docs/architecture.md "Redis Cluster").
-- KEYS: 1 the sorted set. ARGV: 1 the member's score, 2 the member, 3 the limit (0: none).
-- Returns {1, members after} added (or there already), {0, members} refused: the set is full.
local used = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return {1, used} end
local limit = tonumber(ARGV[3])
if limit > 0 and used >= limit then return {0, used} end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
return {1, used + 1}
