-- Adds a project member and the user's project index entry together (store/members.ts).
-- KEYS: 1 project:{pid}:members, 2 user:{uid}:projects, 3 project:{pid}.
-- ARGV: 1 user id, 2 role, 3 score (ms), 4 project id.
-- Returns 1 added, 0 already a member or the project is gone.
if redis.call('EXISTS', KEYS[3]) == 0 then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1
