-- Adds a project member in the project's slot (store/members.ts); the user's project index entry is
-- the step before, in the user's slot (docs/architecture.md "Redis Cluster"). The project's members
-- quota (its owner's plan, DESIGN §11) is checked in the same step: members counted are every
-- entry of the member hash, the owner's included. The new member starts with the project's
-- notifications unread (their own read state): the newest ARGV[4] of them, so the step is bounded
-- whatever the project holds (a read never pages past that many: DESIGN §11).
-- KEYS: 1 project:{pid}:members, 2 project:{pid}, 3 project:{pid}:notifications:unread:{uid},
--       4 project:{pid}:notifications.
-- ARGV: 1 user id, 2 role, 3 the members limit (0: none), 4 how many notifications to mark unread.
-- Returns {1, members after} added, {0, members} already a member, {-1, 0} the project is gone,
-- {-2, members} refused: the project has its quota of members.
if redis.call('EXISTS', KEYS[2]) == 0 then return {-1, 0} end
local used = redis.call('HLEN', KEYS[1])
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {0, used} end
local limit = tonumber(ARGV[3])
if limit > 0 and used >= limit then return {-2, used} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZRANGESTORE', KEYS[3], KEYS[4], 0 - tonumber(ARGV[4]), -1)
return {1, used + 1}
