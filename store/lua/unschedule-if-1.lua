-- Takes a member off a schedule (store/schedule.ts) only while it still has the score its claim
-- gave it: a member scheduled again since (a newer failure) stays.
-- KEYS: 1 the schedule. ARGV: 1 the member, 2 the score of the claim.
-- Returns 1 removed, 0 not.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
