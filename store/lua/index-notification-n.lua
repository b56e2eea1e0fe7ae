-- The project step of a notification create (store/notifications.ts), after the record was written
-- in its own slot (docs/architecture.md "Redis Cluster"): the project's index, the indexes of the
-- filters it matches (its type, its device, both) and, unread, every current member's unread set,
-- only when the index did not hold it yet, so a retried create never marks unread again what a
-- member read meanwhile. Every set it writes loses its entries past the retention
-- (lib/notification-retention.lua); a record already past it is indexed nowhere.
-- Key count: 3 declared plus the filter sets, plus each member's unread set, derived inside from
-- ARGV[3] (which members there are is only known inside Redis); each is named by project first, so
-- all are in its slot.
-- KEYS: 1 project:{pid}:notifications, 2 project:{pid}:members, 3 project:{pid}:notifications:sets,
--       4... the filter sets the record matches (project:{pid}:notifications:by:...).
-- ARGV: 1 score (createdAt ms), 2 id, 3 a member's unread set with '{user}' for the user id,
--       4 cutoff (epoch ms: older entries go), 5 retention (ms).
-- Returns 1 indexed, 0 already indexed or past the retention.
-- #include lib/notification-retention.lua
local score, id, cutoff, retentionMs = ARGV[1], ARGV[2], ARGV[4], ARGV[5]
if tonumber(score) < tonumber(cutoff) then return 0 end
if redis.call('ZADD', KEYS[1], 'NX', score, id) == 0 then return 0 end
keepWithin(KEYS[1], cutoff, retentionMs)
for i = 4, #KEYS do
  redis.call('ZADD', KEYS[i], score, id)
  keepWithin(KEYS[i], cutoff, retentionMs)
  redis.call('ZADD', KEYS[3], 'GT', score, KEYS[i])
end
keepWithin(KEYS[3], cutoff, retentionMs)
for _, userId in ipairs(redis.call('HKEYS', KEYS[2])) do
  local unread = (string.gsub(ARGV[3], '{user}', userId))
  redis.call('ZADD', unread, score, id)
  keepWithin(unread, cutoff, retentionMs)
end
return 1
