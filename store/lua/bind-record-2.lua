-- The device step of a device-bound record (store/lua/device-bound-record.ts): adds the record's id
-- to the device's index only while the device is in the record's project. The record itself is
-- written in the step after, in its own slot (docs/architecture.md "Redis Cluster").
-- KEYS: 1 device:{id}, 2 the device's index. ARGV: 1 project id, 2 record id.
-- Returns 1 bound, 0 the device is gone or in another project.
if redis.call('HGET', KEYS[1], 'projectId') ~= ARGV[1] then return 0 end
redis.call('SADD', KEYS[2], ARGV[2])
return 1
