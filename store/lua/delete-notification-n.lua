-- Deletes a notification and its index entries, every member's unread entry included
-- (store/notification-queries.ts).
-- Key count: 3 declared, plus each member's unread set, derived inside from ARGV[2].
-- KEYS: 1 notification:{id}, 2 project:{pid}:notifications, 3 project:{pid}:members.
-- ARGV: 1 id, 2 a member's unread set with '{user}' for the user id.
-- Returns 1 deleted, 0 already gone.
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
for _, userId in ipairs(redis.call('HKEYS', KEYS[3])) do
  redis.call('ZREM', (string.gsub(ARGV[2], '{user}', userId)), ARGV[1])
end
return 1
