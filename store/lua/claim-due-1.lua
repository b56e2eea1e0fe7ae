-- Claims the members of a schedule (a sorted set scored by when each is next due, epoch ms) that
-- are due, for this caller alone: each is pushed on by the lease, so no other node takes it meanwhile.
-- KEYS: 1 the schedule. ARGV: 1 now (ms), 2 the lease (ms), 3 at most this many.
-- Returns {the members claimed, the score each now has (now + lease)}.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local leased = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, member in ipairs(due) do redis.call('ZADD', KEYS[1], 'XX', leased, member) end
return {due, tostring(leased)}
