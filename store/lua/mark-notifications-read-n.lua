-- Marks notification records read (store/notification-queries.ts). Key count: 1 + one per record.
-- A record is in the unread set exactly while its JSON says unread, so the replacement is written
-- only if the id was still in the unread set (nobody marked it meanwhile).
-- KEYS: 1 project:{pid}:notifications:unread, 2.. notification:{id}
-- ARGV: per record key, its id then its JSON with read true ('' when the record is gone)
-- Returns how many records changed from unread to read.
local updated = 0
for i = 2, #KEYS do
  local id, json = ARGV[2 * i - 3], ARGV[2 * i - 2]
  if redis.call('ZREM', KEYS[1], id) == 1 and json ~= '' and redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('SET', KEYS[i], json)
    updated = updated + 1
  end
end
return updated
