-- The history persister's acknowledgement of a persisted batch (gateway/history/persister.ts).
-- KEYS: 1 the history stream, 2 its extra-points counter (keys.historyExtra).
-- ARGV: 1 the consumer group, 2.. pairs: entry id, how many points it carries beyond one
--       (0 for a one-point entry; k − 1 for a bulk entry of k readings).
-- Acknowledges and deletes the entries; the counter goes down only for an entry this call really
-- deleted, so a batch acknowledged twice (a node taking over a dead one's batch) counts once.
-- Returns how many entries were deleted.
local deleted = 0
local plain = {}
local function flush()
  if #plain > 0 then
    redis.call('XACK', KEYS[1], ARGV[1], unpack(plain))
    deleted = deleted + redis.call('XDEL', KEYS[1], unpack(plain))
    plain = {}
  end
end
for i = 2, #ARGV, 2 do
  local id, extra = ARGV[i], tonumber(ARGV[i + 1])
  if extra > 0 then
    redis.call('XACK', KEYS[1], ARGV[1], id)
    if redis.call('XDEL', KEYS[1], id) == 1 then
      deleted = deleted + 1
      redis.call('DECRBY', KEYS[2], extra)
    end
  else
    plain[#plain + 1] = id
    if #plain >= 1000 then flush() end
  end
end
flush()
return deleted
