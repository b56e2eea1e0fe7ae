-- The ingest pipeline's one Redis round trip (store/store-point.ts).
-- KEYS: 1 device:{id}, 2 device:{id}:pins, 3 the history stream, 4 device:{id}:state,
--       5 device:{id}:locks, 6 device:{id}:rule-state, 7 device:{id}:wake, 8 device:{id}:pending,
--       9 the outbox stream
-- ARGV: 1 pin, 2 value, 3 ms, 4 ISO time, 5 history stream bound, 6 '1' toward the device, 7 '1' from the device,
--       8 wake TTL (s), 9 device id, 10 now (ISO), 11.. triples: rule id, '1'|'0' inside its condition,
--       the notification record (JSON) a crossing raises ('' for none)
-- A crossing's notification goes to the outbox here, in the same step that flips the rule's edge
-- state, so it is carried out (at least once) even if Temporal is down right now.
-- The latest value is JSON {value, updatedAt, origin (device|app|import), reportedAt (the device's own last report)}.
-- Returns {'ok', projectId, status, wake (1|0), newer (1|0), crossed rule ids...};
-- refuses with STORE:DEVICE_GONE, STORE:PIN_LOCKED or STORE:HISTORY_BACKLOG before writing anything.
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return redis.error_reply('STORE:DEVICE_GONE') end
local pin, value, iso = ARGV[1], ARGV[2], ARGV[4]
if ARGV[6] == '1' and redis.call('HEXISTS', KEYS[5], pin) == 1 then return redis.error_reply('STORE:PIN_LOCKED') end
-- History (issue 13): the point goes to the history stream, which the persisters drain into
-- PostgreSQL; persisted entries are deleted, so its length is the backlog. A full stream
-- (PostgreSQL down or behind) refuses the write: the caller answers 503 / leaves MQTT unacked.
if redis.call('XLEN', KEYS[3]) >= tonumber(ARGV[5]) then return redis.error_reply('STORE:HISTORY_BACKLOG') end
local origin = 'import'
if ARGV[6] == '1' then origin = 'app' elseif ARGV[7] == '1' then origin = 'device' end
local newer = 1
local reportedAt = nil
local current = redis.call('HGET', KEYS[2], pin)
if current then
  local ok, parsed = pcall(cjson.decode, current)
  if ok and type(parsed) == 'table' then
    if type(parsed.updatedAt) == 'string' and parsed.updatedAt > iso then newer = 0 end
    if type(parsed.reportedAt) == 'string' then reportedAt = parsed.reportedAt
    elseif parsed.origin == nil and type(parsed.updatedAt) == 'string' then reportedAt = parsed.updatedAt end
  end
end
-- reportedAt: when the device itself last reported this pin (no_data rules count only that).
if origin == 'device' and (reportedAt == nil or reportedAt < iso) then reportedAt = iso end
if newer == 1 then
  redis.call('HSET', KEYS[2], pin, cjson.encode({value = value, updatedAt = iso, origin = origin, reportedAt = reportedAt}))
elseif origin == 'device' and current then
  local ok, parsed = pcall(cjson.decode, current)
  if ok and type(parsed) == 'table' then
    parsed.reportedAt = reportedAt
    redis.call('HSET', KEYS[2], pin, cjson.encode(parsed))
  end
end
redis.call('XADD', KEYS[3], '*', 'p', ARGV[3] .. ' ' .. ARGV[9] .. ' ' .. pin .. ' ' .. value)
local status = redis.call('HGET', KEYS[4], 'status') or 'offline'
if ARGV[6] == '1' then
  if status ~= 'online' then
    redis.call('HSET', KEYS[8], pin, cjson.encode({value = value, queuedAt = ARGV[10], at = iso}))
  else
    -- Delivered directly: a command kept for this pin is older, and must not be sent after it.
    redis.call('HDEL', KEYS[8], pin)
  end
end
local wake = 0
if ARGV[7] == '1' then
  local seen = redis.call('HGET', KEYS[4], 'lastSeen')
  if not seen or seen < iso then redis.call('HSET', KEYS[4], 'lastSeen', iso) end
  if status ~= 'online' and redis.call('SET', KEYS[7], '1', 'NX', 'EX', ARGV[8]) then wake = 1 end
end
local result = {'ok', projectId, status, wake, newer}
for i = 11, #ARGV, 3 do
  local previous = redis.call('HGET', KEYS[6], ARGV[i])
  redis.call('HSET', KEYS[6], ARGV[i], ARGV[i + 1])
  if ARGV[i + 1] == '1' and previous ~= '1' then
    result[#result + 1] = ARGV[i]
    if ARGV[i + 2] ~= '' then redis.call('XADD', KEYS[9], '*', 'type', 'notification', 'payload', ARGV[i + 2]) end
  end
end
return result
