-- The project step of a device create (store/devices.ts), its last: makes the devices, already
-- written in their own slots, part of their project, in one atomic step with the check that the
-- project is there: one device for POST /devices, every row of a bulk import at once (so an import
-- is in its project whole or not at all). retire-project-n.lua runs in this slot too, so a project
-- delete either comes first (this step refuses) or finds the devices in the index (it writes their
-- device-retire intents); no device is left in a deleted project, and no broker account behind one.
-- KEYS: 1 project:{id}, 2 project:{id}:devices, 3 the outbox stream of the project's shard.
-- ARGV: for each device (one or more) 4 values: its id, its index score (createdAt, epoch ms),
--       its twin-start payload, its device-retire payload.
-- Returns {1, twin-start entry ids...} indexed; {0, device-retire entry ids...} the project is gone
-- (the intents take back the broker accounts the devices were given before this step).
-- #include lib/outbox.lua
if redis.call('EXISTS', KEYS[1]) == 0 then
  local retired = {0}
  for i = 1, #ARGV, 4 do retired[#retired + 1] = writeIntent(KEYS[3], 'device-retire', ARGV[i + 3]) end
  return retired
end
local started = {1}
for i = 1, #ARGV, 4 do
  redis.call('ZADD', KEYS[2], ARGV[i + 1], ARGV[i])
  started[#started + 1] = writeIntent(KEYS[3], 'twin-start', ARGV[i + 2])
end
return started
