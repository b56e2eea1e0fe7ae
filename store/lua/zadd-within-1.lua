-- A quota's check and the slots it takes, in one atomic step (store/quota-ledger.ts): adds members
-- to a sorted set only while they all fit under the limit, so two concurrent creates cannot both
-- take the last slot, and a bulk import takes all its slots or none. The set is an account's ledger
-- of what it owns in other slots, written first on create and cleared last on delete
-- (docs/architecture.md "Redis Cluster").
-- KEYS: 1 the sorted set. ARGV: 1 the limit (0: none), then a score and a member for each member (one or more).
-- Returns {1, members after} all added (those there already count once), {0, members} refused:
-- the new ones would not fit, nothing added.
local used = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[1])
local fresh = 0
for i = 2, #ARGV, 2 do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i + 1]) then fresh = fresh + 1 end
end
if limit > 0 and fresh > 0 and used + fresh > limit then return {0, used} end
for i = 2, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end
return {1, used + fresh}
