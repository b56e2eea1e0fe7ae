-- The first step of a device-bound record's delete (store/lua/device-bound-record.ts): the record
-- goes (gone for every reader at once) with the outbox intent the change writes, in its own slot;
-- its index entries are removed in the steps after (docs/architecture.md "Redis Cluster").
-- KEYS: 1 the record, 2 the outbox stream of its shard. ARGV: 1 intent type ('' for none), 2 its payload.
-- Returns 0 when it was already gone; else the intent's entry id, or 1 without one.
-- #include lib/outbox.lua
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
return writeIntent(KEYS[2], ARGV[1], ARGV[2])
