-- The twin's status write to the mirror (store/device-mirror.ts), a no-op once the device is gone.
-- lastSeen only moves forward (ISO 8601 UTC strings of one format compare like the times they stand for).
-- Going offline also clears the gateway's wake marker, so the device's next message signals the
-- twin at once however recently the last wake was.
-- KEYS: 1 device:{id}, 2 device:{id}:state, 3 device:{id}:wake. ARGV: 1 status, 2 statusChangedAt, 3 lastSeen or '',
-- 4 why it went offline ('' for none: the field is removed).
-- Returns {1, lastSeen or '', the device's next event sequence number (docs/realtime.md)} or {0, '', 0}.
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, '', 0} end
redis.call('HSET', KEYS[2], 'status', ARGV[1], 'statusChangedAt', ARGV[2])
if ARGV[4] and ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'disconnectReason', ARGV[4]) else redis.call('HDEL', KEYS[2], 'disconnectReason') end
if ARGV[1] == 'offline' then redis.call('DEL', KEYS[3]) end
local seen = redis.call('HGET', KEYS[2], 'lastSeen')
if ARGV[3] ~= '' and ((not seen) or seen < ARGV[3]) then
  redis.call('HSET', KEYS[2], 'lastSeen', ARGV[3])
  seen = ARGV[3]
end
return {1, seen or '', redis.call('HINCRBY', KEYS[1], 'seq', 1)}
