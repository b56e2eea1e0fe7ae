-- The gateway's `online` ahead of the twin (store/device-mirror.ts, docs/architecture.md "Reconnect
-- storms"), after the twin's signal for it was accepted by Temporal. lastSeen moves forward in
-- every case. The status is written only when the mirror does not say online and its last change
-- is older than `at` (a later offline the twin wrote wins), and it is marked `statusAhead` until
-- the twin's own write (write-status-3.lua) confirms or corrects it.
-- KEYS: 1 device:{id}, 2 device:{id}:state. ARGV: 1 at (ISO 8601), 2 'touch' (only move lastSeen
-- forward, and say whether the mirror shows online) or 'ahead'.
-- Returns {written 1|0, status now, lastSeen or '', seq (0 when not written)}; {0, '', '', 0} when the device is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, '', '', 0} end
local at = ARGV[1]
local state = redis.call('HMGET', KEYS[2], 'status', 'statusChangedAt', 'lastSeen')
local seen = state[3]
if (not seen) or seen < at then
  redis.call('HSET', KEYS[2], 'lastSeen', at)
  seen = at
end
local status = state[1] or ''
if ARGV[2] ~= 'ahead' or status == 'online' or (state[2] and state[2] >= at) then return {0, status, seen, 0} end
redis.call('HSET', KEYS[2], 'status', 'online', 'statusChangedAt', at, 'statusAhead', '1')
redis.call('HDEL', KEYS[2], 'disconnectReason')
return {1, 'online', seen, redis.call('HINCRBY', KEYS[1], 'seq', 1)}
