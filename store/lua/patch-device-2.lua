-- A device's PATCH (store/devices.ts): its fields, and the rules-changed intent for its twin when
-- what its rules cover changed (tags, template, heartbeat), in one step in the device's slot.
-- KEYS: 1 device:{id}, 2 the outbox stream of its shard.
-- ARGV: 1 intent type ('' for none), 2 its payload, then field, value, ... (a value '' removes the field).
-- Returns 0 when the device is gone, else the intent's entry id, or 1 without one.
-- #include lib/outbox.lua
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 3, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return writeIntent(KEYS[2], ARGV[1], ARGV[2])
