-- A device create's write in the device's slot (store/devices.ts): its hash and its fleet index
-- entries (lib/fleet-index.lua) in one step, so a device found by id is found by the filters too.
-- KEYS: 1 device:{id}, 2 device:{id}:state, 3 the fleet index of its shard.
-- ARGV: 1 device id, then field, value, ... (none: the entries of the device as stored, added where
-- missing: scripts/migrate/fleet-index.ts for devices made before the index).
-- #include lib/fleet-index.lua
if #ARGV > 1 then redis.call('HSET', KEYS[1], unpack(ARGV, 2)) end
fleetIndexDevice(KEYS[3], KEYS[1], KEYS[2], ARGV[1], true)
return 1
