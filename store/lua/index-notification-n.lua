-- The project step of a notification create (store/notifications.ts), after the record was written
-- in its own slot (docs/architecture.md "Redis Cluster"): the project's index and, unread, every
-- current member's unread set, only when the index did not hold it yet, so a retried create never
-- marks unread again what a member read meanwhile.
-- Key count: 2 declared, plus each member's unread set, derived inside from ARGV[3] (which members
-- there are is only known inside Redis); each is named by project first, so all are in its slot.
-- KEYS: 1 project:{pid}:notifications, 2 project:{pid}:members
-- ARGV: 1 score (createdAt ms), 2 id, 3 a member's unread set with '{user}' for the user id
-- Returns 1 indexed, 0 already indexed.
if redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[2]) == 0 then return 0 end
for _, userId in ipairs(redis.call('HKEYS', KEYS[2])) do
  redis.call('ZADD', (string.gsub(ARGV[3], '{user}', userId)), ARGV[1], ARGV[2])
end
return 1
