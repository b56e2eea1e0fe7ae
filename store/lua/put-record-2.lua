-- The record step of a device-bound record's create (store/lua/device-bound-record.ts): the record,
-- and the outbox intent the change writes, in the record's own slot (its shard's outbox stream), so
-- the intent is carried out only once the record is there to be read.
-- KEYS: 1 the record, 2 the outbox stream of its shard. ARGV: 1 record JSON, 2 intent type ('' for none), 3 its payload.
-- Returns the intent's entry id, or 1 without one.
-- #include lib/outbox.lua
redis.call('SET', KEYS[1], ARGV[1])
return writeIntent(KEYS[2], ARGV[2], ARGV[3])
