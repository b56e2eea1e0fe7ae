-- Deletes a device-bound record, drops it from both indexes and from any further hash keyed by
-- its id (store/lua/device-bound-record.ts). Key count: 4 + one per such hash.
-- KEYS: 1 the record, 2 its project index, 3 its device index, 4 the outbox stream,
--       5.. hashes holding per-record state.
-- ARGV: 1 record id, 2 outbox intent type ('' for none), 3 its payload.
-- Returns 0 when it was already gone; else the intent's entry id, or 1 without one.
-- #include lib/outbox.lua
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('SREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
for i = 5, #KEYS do redis.call('HDEL', KEYS[i], ARGV[1]) end
return writeIntent(KEYS[4], ARGV[2], ARGV[3])
