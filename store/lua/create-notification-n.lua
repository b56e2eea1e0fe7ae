-- Idempotent notification create, one atomic round trip (store/notifications.ts): the record, the
-- project's index and, unread, every current member's unread set.
-- Key count: 4 declared, plus each member's unread set, derived inside from ARGV[4] (which members
-- there are is only known inside Redis).
-- KEYS: 1 notification:{id}, 2 project:{pid}:notifications, 3 project:{pid}:members,
--       4 the key that must still exist (e.g. device:{id}), or the notification key itself when none
-- ARGV: 1 record JSON, 2 score (createdAt ms), 3 id, 4 a member's unread set with '{user}' for the user id
-- Returns 1 created, 0 already there (a retry), -1 the owner is gone (nothing written).
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if KEYS[4] ~= KEYS[1] and redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
for _, userId in ipairs(redis.call('HKEYS', KEYS[3])) do
  redis.call('ZADD', (string.gsub(ARGV[4], '{user}', userId)), ARGV[2], ARGV[3])
end
return 1
