-- The project step of a notification delete (store/notification-queries.ts): its index entries,
-- the filter sets' and every member's unread entry included; the record goes in the step after, in
-- its own slot (docs/architecture.md "Redis Cluster"), so a crash between leaves it reachable by id only.
-- Key count: 2 declared plus the filter sets, plus each member's unread set, derived inside from ARGV[2].
-- KEYS: 1 project:{pid}:notifications, 2 project:{pid}:members,
--       3... the filter sets the record matches (project:{pid}:notifications:by:...).
-- ARGV: 1 id, 2 a member's unread set with '{user}' for the user id.
-- Returns 1 removed, 0 it was not indexed.
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[1]) end
for _, userId in ipairs(redis.call('HKEYS', KEYS[2])) do
  redis.call('ZREM', (string.gsub(ARGV[2], '{user}', userId)), ARGV[1])
end
return removed
