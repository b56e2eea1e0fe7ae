-- Deletes a device-bound record, drops it from both indexes and from any further hash keyed by
-- its id (store/lua/device-bound-record.ts). Key count: 3 + one per such hash.
-- KEYS: 1 the record, 2 its project index, 3 its device index, 4.. hashes holding per-record state.
-- ARGV: 1 record id. Returns 1 deleted, 0 already gone.
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
for i = 2, #KEYS do
  if i <= 3 then redis.call('SREM', KEYS[i], ARGV[1]) else redis.call('HDEL', KEYS[i], ARGV[1]) end
end
return 1
