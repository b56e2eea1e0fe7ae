-- Deletes a notification and its index entries (store/notification-queries.ts).
-- KEYS: 1 notification:{id}, 2 project:{pid}:notifications, 3 its unread subset. ARGV: 1 id.
-- Returns 1 deleted, 0 already gone.
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
