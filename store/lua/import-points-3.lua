-- A bulk import of past readings in one step (store/import-points.ts, POST /data/{id}/bulk).
-- KEYS: 1 device:{id}, 2 device:{id}:pins, 3 the history stream.
-- ARGV: 1 history stream bound, 2 device id, 3.. quadruples: pin, value, ms, ISO time.
-- Appends every reading to the history stream, and moves each pin's latest value to its newest
-- reading unless a newer value is there, as store-point-9.lua does for one import: origin
-- 'import', reportedAt kept (an import is not the device reporting).
-- Each moved latest value takes the device's next event sequence number (docs/realtime.md), as
-- store-point-9.lua does for every value.
-- Returns {projectId, then pin, value, ISO time, sequence number of each latest value moved}; refuses with
-- STORE:DEVICE_GONE or STORE:HISTORY_BACKLOG (the readings do not fit) before writing anything.
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return redis.error_reply('STORE:DEVICE_GONE') end
if redis.call('XLEN', KEYS[3]) + (#ARGV - 2) / 4 > tonumber(ARGV[1]) then return redis.error_reply('STORE:HISTORY_BACKLOG') end
local newest, pins = {}, {}
for i = 3, #ARGV, 4 do
  local pin, iso = ARGV[i], ARGV[i + 3]
  redis.call('XADD', KEYS[3], '*', 'p', ARGV[i + 2] .. ' ' .. ARGV[2] .. ' ' .. pin .. ' ' .. ARGV[i + 1])
  local best = newest[pin]
  if not best then pins[#pins + 1] = pin end
  if not best or iso >= best.iso then newest[pin] = {value = ARGV[i + 1], iso = iso} end
end
local result = {projectId}
for _, pin in ipairs(pins) do
  local best = newest[pin]
  local newer, reportedAt = true, nil
  local current = redis.call('HGET', KEYS[2], pin)
  if current then
    local ok, parsed = pcall(cjson.decode, current)
    if ok and type(parsed) == 'table' then
      if type(parsed.updatedAt) == 'string' and parsed.updatedAt > best.iso then newer = false end
      if type(parsed.reportedAt) == 'string' then reportedAt = parsed.reportedAt
      elseif parsed.origin == nil and type(parsed.updatedAt) == 'string' then reportedAt = parsed.updatedAt end
    end
  end
  if newer then
    redis.call('HSET', KEYS[2], pin, cjson.encode({value = best.value, updatedAt = best.iso, origin = 'import', reportedAt = reportedAt}))
    result[#result + 1] = pin
    result[#result + 1] = best.value
    result[#result + 1] = best.iso
    result[#result + 1] = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  end
end
return result
