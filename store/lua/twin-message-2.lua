-- A device's `offline` status (or Last Will) or `info` message for its twin, written as an outbox
-- intent (store/twin-messages.ts), so the twin is told even when Temporal is down now: the bridge
-- acknowledges the message once this step is done, and the relay carries the intent out.
-- KEYS: 1 device:{id}, 2 the outbox stream.
-- ARGV: 1 the intent type (twin-status, twin-info), 2 its payload JSON, without projectId.
-- Returns the entry id, or false when the device is gone (nothing is written).
-- #include lib/outbox.lua
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return false end
local payload = cjson.decode(ARGV[2])
payload.projectId = projectId
return writeIntent(KEYS[2], ARGV[1], cjson.encode(payload))
