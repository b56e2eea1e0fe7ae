-- A bulk import of past readings in one step (store/import-points.ts, POST /data/{id}/bulk).
-- KEYS: 1 device:{id}, 2 device:{id}:pins, 3 the history stream, 4 the stream's extra-points
--       counter (keys.historyExtra).
-- ARGV: 1 history stream bound (points), 2 how many readings, 3 the readings as one bulk stream
--       entry (JSON, store/history-stream.ts), 4 the device id, 5–7 where the device's events are
--       published (lib/device-events.lua), 8.. triples per pin: pin, value and ISO time of the
--       pin's newest reading in the import.
-- Appends the readings to the history stream as ONE entry `ms-n` standing for the ids ms-n …
-- ms-(n+k-1) (the stream's last id is moved past them, so no other entry gets one), and moves
-- each pin's latest value to its newest reading unless a newer value is there, as
-- store-point-13.lua does for one import: origin 'import', reportedAt kept (an import is not the
-- device reporting).
-- Each moved latest value takes the device's next event sequence number and publishes its
-- pin:update (docs/realtime.md) in the same step, as store-point-13.lua does for every value.
-- Returns {projectId}; refuses with
-- STORE:DEVICE_GONE or STORE:HISTORY_BACKLOG (the readings do not fit) before writing anything.
-- #include lib/device-events.lua
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return redis.error_reply('STORE:DEVICE_GONE') end
local count = tonumber(ARGV[2])
local backlog = redis.call('XLEN', KEYS[3]) + tonumber(redis.call('GET', KEYS[4]) or '0')
if backlog + count > tonumber(ARGV[1]) then return redis.error_reply('STORE:HISTORY_BACKLOG') end
if count > 0 then
  local id = redis.call('XADD', KEYS[3], '*', 'b', ARGV[3], 'n', ARGV[2])
  if count > 1 then
    local ms, n = string.match(id, '^(%d+)%-(%d+)$')
    redis.call('XSETID', KEYS[3], ms .. '-' .. string.format('%d', tonumber(n) + count - 1))
    redis.call('INCRBY', KEYS[4], count - 1)
  end
end
local deviceId, route = ARGV[4], {ARGV[5], ARGV[6], ARGV[7]}
for i = 8, #ARGV, 3 do
  local pin, value, iso = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local newer, reportedAt = true, nil
  local current = redis.call('HGET', KEYS[2], pin)
  if current then
    local ok, parsed = pcall(cjson.decode, current)
    if ok and type(parsed) == 'table' then
      if type(parsed.updatedAt) == 'string' and parsed.updatedAt > iso then newer = false end
      if type(parsed.reportedAt) == 'string' then reportedAt = parsed.reportedAt
      elseif parsed.origin == nil and type(parsed.updatedAt) == 'string' then reportedAt = parsed.updatedAt end
    end
  end
  if newer then
    redis.call('HSET', KEYS[2], pin, cjson.encode({value = value, updatedAt = iso, origin = 'import', reportedAt = reportedAt}))
    local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
    publishDeviceEvent(route, projectId, deviceId, 'pin:update', {deviceId = deviceId, pin = pin, value = value, updatedAt = iso, seq = seq})
  end
end
return {projectId}
