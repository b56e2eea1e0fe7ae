-- Adds a project member in the project's slot (store/members.ts); the user's project index entry is
-- the step before, in the user's slot (docs/architecture.md "Redis Cluster"). The new member starts
-- with every notification of the project unread (their own read state).
-- KEYS: 1 project:{pid}:members, 2 project:{pid}, 3 project:{pid}:notifications:unread:{uid},
--       4 project:{pid}:notifications.
-- ARGV: 1 user id, 2 role.
-- Returns 1 added, 0 already a member, -1 the project is gone.
if redis.call('EXISTS', KEYS[2]) == 0 then return -1 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZUNIONSTORE', KEYS[3], 1, KEYS[4])
return 1
