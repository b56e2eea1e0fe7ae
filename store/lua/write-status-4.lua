-- The twin's status write to the mirror (store/device-mirror.ts), a no-op once the device is gone.
-- lastSeen only moves forward (ISO 8601 UTC strings of one format compare like the times they stand for).
-- Going offline also clears the gateway's wake marker, so the device's next message signals the
-- twin at once however recently the last wake was. The write confirms an `online` the gateway wrote
-- ahead (write-status-ahead-4.lua): `statusAhead` is removed; an older offline does not replace it.
-- Liveness: follows workflows/twin/liveness.ts; this script writes what that module decided and decides nothing.
-- Its online and lastSeen entries in the fleet index (lib/fleet-index.lua) move in the same step.
-- KEYS: 1 device:{id}, 2 device:{id}:state, 3 device:{id}:wake, 4 the fleet index of its shard. ARGV: 1 status, 2 statusChangedAt, 3 lastSeen or '',
-- 4 why it went offline ('' for none: the field is removed), 5 '1' for the twin's first status of a
-- device whose mirror had none at its start: written only while the mirror still has none,
-- 6 the device id, 7–9 where the device's events are published (lib/device-events.lua).
-- When status, statusChangedAt or the reason changed, the write takes the device's next event
-- sequence number and publishes its `device:status` (docs/realtime.md) to the rooms of the device
-- and its project in the same step; none when the mirror already said so (the gateway's write
-- ahead, or a heal of a mirror that was right).
-- Returns {1, lastSeen or ''}, or {0, ''} when the device is gone.
-- #include lib/device-events.lua
-- #include lib/fleet-index.lua
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return {0, ''} end
local before = redis.call('HMGET', KEYS[2], 'status', 'statusChangedAt', 'disconnectReason', 'statusAhead', 'lastSeen')
-- The fleet index follows the mirror as this step leaves it (lastSeen `seen`, the status as stored).
local function indexed(seen)
  fleetMove(KEYS[4], projectId, 'l', before[5], seen, ARGV[6])
  fleetMove(KEYS[4], projectId, 'o', fleetOnline(before[1]), fleetOnline(redis.call('HGET', KEYS[2], 'status')), ARGV[6])
  return {1, seen or ''}
end
-- An `online` written ahead after this status: the twin has its signal queued and will write
-- `online` itself (it takes activity after its own change), so its older write does not undo it.
-- A first status finding one written since (the gateway's ahead) leaves it the same way: a twin
-- that has seen no offline takes that queued activity whatever its time.
local keep = before[4] and ARGV[1] ~= 'online' and before[2] and before[2] > ARGV[2]
if keep or (ARGV[5] == '1' and before[1]) then
  local seen = before[5]
  if ARGV[3] ~= '' and ((not seen) or seen < ARGV[3]) then
    redis.call('HSET', KEYS[2], 'lastSeen', ARGV[3])
    seen = ARGV[3]
  end
  return indexed(seen)
end
local reason = ARGV[4] or ''
local changed = before[1] ~= ARGV[1] or before[2] ~= ARGV[2] or (before[3] or '') ~= reason
redis.call('HSET', KEYS[2], 'status', ARGV[1], 'statusChangedAt', ARGV[2])
redis.call('HDEL', KEYS[2], 'statusAhead')
if reason ~= '' then redis.call('HSET', KEYS[2], 'disconnectReason', reason) else redis.call('HDEL', KEYS[2], 'disconnectReason') end
if ARGV[1] == 'offline' then redis.call('DEL', KEYS[3]) end
local seen = redis.call('HGET', KEYS[2], 'lastSeen')
if ARGV[3] ~= '' and ((not seen) or seen < ARGV[3]) then
  redis.call('HSET', KEYS[2], 'lastSeen', ARGV[3])
  seen = ARGV[3]
end
if not changed then return indexed(seen) end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
publishDeviceEvent({ARGV[7], ARGV[8], ARGV[9]}, projectId, ARGV[6], 'device:status', statusEvent(ARGV[6], ARGV[1], seen, reason, seq))
return indexed(seen)
