-- The gateway's `online` ahead of the twin (store/device-mirror.ts, docs/architecture.md "Reconnect
-- storms"), with the twin's signal for it as an outbox intent in the same step, so the twin is
-- told (at least once) of every `online` the mirror shows ahead of it. lastSeen moves forward in
-- every case. The status is written only when the mirror does not say online and its last change
-- is older than `at` (a later change the twin wrote wins, and the twin would not take activity
-- from before it), and it is marked `statusAhead` until the twin's own write (write-status-4.lua)
-- confirms or corrects it. Its online and lastSeen entries in the fleet index (lib/fleet-index.lua)
-- move in the same step.
-- Liveness: follows workflows/twin/liveness.ts, which decides online and offline; this script only
-- shows ahead the `online` that module decides for activity after the last change.
-- KEYS: 1 device:{id}, 2 device:{id}:state, 3 the outbox stream, 4 the fleet index of its shard.
-- ARGV: 1 device id, 2 at (ISO 8601), 3 the pin the activity was on ('' for a status message),
--       4 '1' for a status `online` message: when the mirror shows online already, the twin is told
--       only if the last status it was told or held is not `online` (it may hold an offline the
--       mirror does not show yet, and must see this after it), through lib/twin-messages.lua (at
--       most one status a second; an `online` the mirror shows and the twin was told costs nothing),
--       5–7 where the device's events are published (lib/device-events.lua),
--       8 now (ms), 9 the status window (ms).
-- An `online` written publishes its `device:status` (docs/realtime.md) in the same step.
-- Returns {written 1|0, status now ('' for none), lastSeen or ''}; {0, '', ''} when the device is gone.
-- #include lib/outbox.lua
-- #include lib/device-events.lua
-- #include lib/twin-messages.lua
-- #include lib/fleet-index.lua
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return {0, '', ''} end
local at = ARGV[2]
local state = redis.call('HMGET', KEYS[2], 'status', 'statusChangedAt', 'lastSeen')
local seen = state[3]
if (not seen) or seen < at then
  redis.call('HSET', KEYS[2], 'lastSeen', at)
  fleetMove(KEYS[4], projectId, 'l', seen, at, ARGV[1])
  seen = at
end
local status = state[1] or ''
local payload = {deviceId = ARGV[1], projectId = projectId, at = at}
if ARGV[3] ~= '' then payload.pin = ARGV[3] end
if status == 'online' or (state[2] and state[2] >= at) then
  if status == 'online' and ARGV[4] == '1' and redis.call('HGET', KEYS[2], 'msg:status:last') ~= 'online' then
    tellTwin(KEYS[2], KEYS[3], 'status', {deviceId = ARGV[1], projectId = projectId, status = 'online', at = at}, tonumber(ARGV[8]), tonumber(ARGV[9]))
  end
  return {0, status, seen}
end
-- The twin is told `online` now: a status held for the window's end is this online too (the last wins).
redis.call('HSET', KEYS[2], 'msg:status:last', 'online')
if redis.call('HEXISTS', KEYS[2], 'msg:status') == 1 then
  redis.call('HSET', KEYS[2], 'msg:status', cjson.encode({deviceId = ARGV[1], projectId = projectId, status = 'online', at = at}))
end
redis.call('HSET', KEYS[2], 'status', 'online', 'statusChangedAt', at, 'statusAhead', '1')
fleetMove(KEYS[4], projectId, 'o', nil, 'online', ARGV[1])
redis.call('HDEL', KEYS[2], 'disconnectReason')
writeIntent(KEYS[3], 'twin-online', cjson.encode(payload))
publishDeviceEvent({ARGV[5], ARGV[6], ARGV[7]}, projectId, ARGV[1], 'device:status', statusEvent(ARGV[1], 'online', seen, nil, redis.call('HINCRBY', KEYS[1], 'seq', 1)))
return {1, 'online', seen}
