-- Creates a record bound to a device (widget, notification rule) only while the device is in
-- the record's project, so a create racing a device delete leaves no orphan (store/lua/device-bound-record.ts).
-- KEYS: 1 device:{id}, 2 the record, 3 its project index, 4 its device index, 5 the outbox stream.
-- ARGV: 1 project id, 2 record JSON, 3 record id, 4 outbox intent type ('' for none), 5 its payload.
-- Returns 0 when the device is gone or elsewhere; else the intent's entry id, or 1 without one.
-- #include lib/outbox.lua
if redis.call('HGET', KEYS[1], 'projectId') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[3])
return writeIntent(KEYS[5], ARGV[4], ARGV[5])
