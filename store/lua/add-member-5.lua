-- Adds a project member and the user's project index entry together (store/members.ts). The new
-- member starts with every notification of the project unread (their own read state).
-- KEYS: 1 project:{pid}:members, 2 user:{uid}:projects, 3 project:{pid},
--       4 project:{pid}:notifications:unread:{uid}, 5 project:{pid}:notifications.
-- ARGV: 1 user id, 2 role, 3 score (ms), 4 project id.
-- Returns 1 added, 0 already a member or the project is gone.
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZUNIONSTORE', KEYS[4], 1, KEYS[5])
return 1
