-- A device's PATCH (store/devices.ts): its fields, its fleet index entries (lib/fleet-index.lua:
-- name, tags, template), and the rules-changed intent for its twin when what its rules cover
-- changed (tags, template, heartbeat), in one step in the device's slot.
-- KEYS: 1 device:{id}, 2 the outbox stream of its shard, 3 the fleet index of its shard.
-- ARGV: 1 intent type ('' for none), 2 its payload, then field, value, ... (a value '' removes the field).
-- Returns 0 when the device is gone, else the intent's entry id, or 1 without one.
-- #include lib/outbox.lua
-- #include lib/fleet-index.lua
local before = redis.call('HMGET', KEYS[1], 'id', 'projectId', 'name', 'tags', 'templateId')
if not before[2] then return 0 end
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
local after = redis.call('HMGET', KEYS[1], 'name', 'tags', 'templateId')
local id, projectId = before[1], before[2]
fleetMove(KEYS[3], projectId, 'n', before[3], after[1], id)
fleetMoveTags(KEYS[3], projectId, before[4], after[2], id)
fleetMove(KEYS[3], projectId, 'm', before[5], after[3], id)
return writeIntent(KEYS[2], ARGV[1], ARGV[2])
