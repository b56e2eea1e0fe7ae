-- The project step of a device create (store/devices.ts), its last: makes the device, already
-- written in its own slot, part of its project, in one atomic step with the check that the project
-- is there. retire-project-n.lua runs in this slot too, so a project delete either comes first
-- (this step refuses) or finds the device in the index (it writes the device's device-retire
-- intent); no device is left in a deleted project, and no broker account behind one.
-- KEYS: 1 project:{id}, 2 project:{id}:devices, 3 the outbox stream of the project's shard.
-- ARGV: 1 device id, 2 its index score (createdAt, epoch ms), 3 the twin-start payload,
--       4 the device-retire payload.
-- Returns {1, twin-start entry id} indexed; {0, device-retire entry id} the project is gone (the
-- intent takes back the broker account the device was given before this step).
-- #include lib/outbox.lua
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {0, writeIntent(KEYS[3], 'device-retire', ARGV[4])}
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return {1, writeIntent(KEYS[3], 'twin-start', ARGV[3])}
