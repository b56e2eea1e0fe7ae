-- A fleet catch-up's chunks written once per rule change (store/fleet-catch-up.ts): a request and
-- a relay may both carry out the same rules-changed intent (gateway/outbox/carry-out-now.ts), and
-- each chunk costs its twins an Update, so the second writes nothing.
-- KEYS: 1 the change's marker, 2 the outbox stream (the same shard). ARGV: 1 the marker's TTL in
-- seconds, then one intent type and payload pair per chunk.
-- Returns the chunks written: 0 when the change was caught up already.
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return 0 end
for i = 2, #ARGV, 2 do
  redis.call('XADD', KEYS[2], '*', 'type', ARGV[i], 'payload', ARGV[i + 1])
end
return (#ARGV - 1) / 2
