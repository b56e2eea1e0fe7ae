-- The twin's info fields (ipAddress, firmwareVersion, hardwareType) to the mirror (store/device-mirror.ts),
-- while the device exists, with its firmware's fleet index entry (lib/fleet-index.lua) in the same step.
-- KEYS: 1 device:{id}, 2 device:{id}:state, 3 the fleet index of its shard. ARGV: 1 device id, then field, value, ...
-- Returns 1 written, 0 the device is gone.
-- #include lib/fleet-index.lua
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return 0 end
local before = redis.call('HGET', KEYS[2], 'firmwareVersion')
redis.call('HSET', KEYS[2], unpack(ARGV, 2))
fleetMove(KEYS[3], projectId, 'f', before, redis.call('HGET', KEYS[2], 'firmwareVersion'), ARGV[1])
return 1
