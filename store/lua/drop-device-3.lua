-- Takes back a device create's write (store/devices.ts) when its project step refused: its fleet
-- index entries (lib/fleet-index.lua) and its hash, in one step.
-- KEYS: 1 device:{id}, 2 device:{id}:state, 3 the fleet index of its shard. ARGV: 1 device id.
-- #include lib/fleet-index.lua
fleetIndexDevice(KEYS[3], KEYS[1], KEYS[2], ARGV[1], false)
redis.call('DEL', KEYS[1])
return 1
