-- A device's `offline` status (or Last Will) or `info` message for its twin (store/twin-messages.ts),
-- written to the outbox at most once a second each, later ones merged (lib/twin-messages.lua), so
-- the twin is told even when Temporal is down now, and a device that floods costs the twin one
-- signal a second: the bridge acknowledges the message once this step is done.
-- KEYS: 1 device:{id}, 2 device:{id}:state, 3 the outbox stream.
-- ARGV: 1 kind (status, info), 2 the intent's payload JSON without projectId, 3 now (ms), 4 the window (ms).
-- Returns the entry id or 'merged', or false when the device is gone (nothing is written).
-- #include lib/outbox.lua
-- #include lib/twin-messages.lua
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return false end
local message = cjson.decode(ARGV[2])
message.projectId = projectId
return tellTwin(KEYS[2], KEYS[3], ARGV[1], message, tonumber(ARGV[3]), tonumber(ARGV[4]))
