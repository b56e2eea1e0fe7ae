-- The ingest pipeline's one Redis round trip (store/store-point.ts).
-- KEYS: 1 device:{id}, 2 device:{id}:pins, 3 the history stream, 4 device:{id}:state,
--       5 device:{id}:locks, 6 device:{id}:rule-state, 7 device:{id}:wake, 8 device:{id}:pending,
--       9 the outbox stream, 10 the history stream's extra-points counter (keys.historyExtra),
--       11 command:{commandId} of the write's command (when it makes none, KEYS[12] again: not touched),
--       12 device:{id}:commands, 13 the fleet index of its shard (lib/fleet-index.lua: lastSeen's entry)
-- ARGV: 1 pin, 2 value, 3 ms, 4 ISO time, 5 history stream bound, 6 '1' toward the device, 7 '1' from the device,
--       8 wake TTL (s), 9 device id, 10 now (ISO), 11 the write's command record, queued, without its
--       projectId (JSON, '' for none: store/commands.ts StoredCommand), 12 how long a command record is
--       kept (s), 13 how many records a device keeps, 14–16 where the device's events are published
--       (lib/device-events.lua), 17 the device's values a second by its owner's plan and the burst it
--       may send at once, `rate,burst` ('' for no limit),
--       18 the least time between two notifications of one rule for this device (ms),
--       19 the MQTT delivery `id,packetKey,redelivered` ('' for none): see "Each delivery stored once",
--       20.. quadruples per threshold rule: see the alarm block at the end
-- A crossing's intents go to the outbox here, in the same step that flips the rule's edge
-- state, so they are carried out (at least once) even if Temporal is down right now.
-- The latest value is JSON {value, updatedAt, origin (device|app|import), reportedAt (the device's own last report)}.
-- Publishes the value's pin:update and the write's `command` event (docs/realtime.md) in the same step.
-- Returns {'ok', projectId, status, wake (1|0), newer (1|0), superseded command id or '',
--          acknowledged command id or '', the command record written (JSON) or '', crossed rule ids...},
--         or {'dup', projectId, acknowledged command id or ''} for a delivery stored already (nothing
--         written), or {'intents', rule ids...}
--         for rules sent without the intents their edge now writes (nothing written);
-- refuses with STORE:DEVICE_GONE, STORE:DEVICE_RATE, STORE:PIN_LOCKED or STORE:HISTORY_BACKLOG before writing anything.
-- #include lib/device-events.lua
-- #include lib/fleet-index.lua
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return redis.error_reply('STORE:DEVICE_GONE') end
local pin, value, iso = ARGV[1], ARGV[2], ARGV[4]
-- Each delivery stored once (docs/architecture.md "Each value stored once"): a value the MQTT bridge
-- took carries its delivery's id (random, kept by the bridge's retries and ioredis's resends) and
-- its packet key (a digest of the broker session, packet id and content), each 12 hex digits. The
-- device's last DELIVERY_RING deliveries are one string of 24-digit records in its state hash. A
-- delivery found there was stored already: a retry of a step that ran but whose reply was lost (a
-- timeout, a failover), or, by its packet key, the broker's redelivery after the node that stored
-- it died before its PUBACK. A packet key is looked for only in a redelivery: packet ids are reused.
local DELIVERY_RING = 128
-- Whether `seen` holds `part` as the id (offset 0) or the packet key (offset 12) of one of its records.
local function recorded(seen, part, offset)
  local at = string.find(seen, part, 1, true)
  while at do
    if (at - 1) % 24 == offset then return true end
    at = string.find(seen, part, at + 1, true)
  end
  return false
end
-- Commands: a device value equal to the command awaited on its pin acknowledges it. The awaited
-- entry is left for the command's move (command-4.lua) to remove: a step whose reply was lost (a
-- failover, a timeout) is tried again as a duplicate, which must still name the command, or the
-- receipt would stay `sent` for good.
local function acknowledgedCommand()
  if ARGV[7] ~= '1' then return '' end
  local waiting = redis.call('HGET', KEYS[4], 'ack:' .. pin)
  if not waiting then return '' end
  local ok, awaited = pcall(cjson.decode, waiting)
  if ok and type(awaited) == 'table' and awaited.value == value and type(awaited.commandId) == 'string' then return awaited.commandId end
  return ''
end
local deliveries = nil
if ARGV[19] ~= '' then
  local id, packetKey, redelivered = string.match(ARGV[19], '^(%x+),(%x+),([01])$')
  local seen = redis.call('HGET', KEYS[4], 'deliveries') or ''
  if recorded(seen, id, 0) or (redelivered == '1' and recorded(seen, packetKey, 12)) then return {'dup', projectId, acknowledgedCommand()} end
  deliveries = string.sub(id .. packetKey .. seen, 1, 24 * DELIVERY_RING)
end
-- Threshold rules sent without their intents ('?', store/store-point.ts: most values cross
-- nothing): when one of them would flip its edge here, nothing is written and their ids come back,
-- so the caller sends the value again with those rules' intents.
local withoutIntents = {'intents'}
for i = 20, #ARGV, 4 do
  local state = ARGV[i + 1]
  if state ~= '=' and (ARGV[i + 2] == '?' or ARGV[i + 3] == '?') then
    local previous = redis.call('HGET', KEYS[6], ARGV[i])
    if (state == '1' and previous ~= '1') or (state == '0' and previous == '1') then withoutIntents[#withoutIntents + 1] = ARGV[i] end
  end
end
if #withoutIntents > 1 then return withoutIntents end
-- A device's own values within its owner's plan rate (DESIGN §11): a token bucket in its state hash,
-- refilled at the rate up to the burst, so values sent within the rate are never refused, even when
-- they arrive together (a backlog the broker kept through an outage, a device's own buffer); an
-- empty bucket refuses the value (dropped and counted by the caller).
if ARGV[7] == '1' and ARGV[17] ~= '' then
  local rateText, burstText = string.match(ARGV[17], '^([^,]+),([^,]+)$')
  local rate = tonumber(rateText)
  local nowMs = tonumber(ARGV[3])
  local bucket = redis.call('HMGET', KEYS[4], 'rate:tokens', 'rate:at')
  local capacity = tonumber(burstText)
  local tokens = tonumber(bucket[1]) or capacity
  local last = tonumber(bucket[2]) or nowMs
  tokens = math.min(capacity, tokens + math.max(0, nowMs - last) * rate / 1000)
  if tokens < 1 then return redis.error_reply('STORE:DEVICE_RATE') end
  redis.call('HSET', KEYS[4], 'rate:tokens', tostring(tokens - 1), 'rate:at', ARGV[3])
end
if ARGV[6] == '1' and redis.call('HEXISTS', KEYS[5], pin) == 1 then return redis.error_reply('STORE:PIN_LOCKED') end
-- History (issue 13): the point goes to the history stream, which the persisters drain into
-- PostgreSQL; persisted entries are deleted, so its length plus the points bulk entries hold
-- beyond one (KEYS[10]) is the backlog. A full stream (PostgreSQL down or behind) refuses the
-- write: the caller answers 503 / leaves MQTT unacked.
if redis.call('XLEN', KEYS[3]) + tonumber(redis.call('GET', KEYS[10]) or '0') >= tonumber(ARGV[5]) then return redis.error_reply('STORE:HISTORY_BACKLOG') end
if deliveries then redis.call('HSET', KEYS[4], 'deliveries', deliveries) end
local command = nil
if ARGV[11] ~= '' then command = cjson.decode(ARGV[11]) end
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
-- Commands (docs/commands.md): the kept command a write replaces is superseded.
local superseded = ''
if ARGV[6] == '1' then
  local kept = redis.call('HGET', KEYS[8], pin)
  if kept then
    local ok, old = pcall(cjson.decode, kept)
    if ok and type(old) == 'table' and type(old.commandId) == 'string' then superseded = old.commandId end
  end
  if status ~= 'online' then
    local entry = {value = value, queuedAt = ARGV[10], at = iso}
    if command then
      entry.commandId = command.id
      if command.expiresAt ~= cjson.null then entry.expiresAt = command.expiresAt end
    end
    redis.call('HSET', KEYS[8], pin, cjson.encode(entry))
  else
    -- Delivered directly: a command kept for this pin is older, and must not be sent after it.
    redis.call('HDEL', KEYS[8], pin)
  end
end
local acknowledged = acknowledgedCommand()
-- Liveness: follows workflows/twin/liveness.ts (a device's value is activity, which may bring it
-- online): the wake marker tells its twin once per wake TTL while the mirror does not show it online.
local wake = 0
if ARGV[7] == '1' then
  local seen = redis.call('HGET', KEYS[4], 'lastSeen')
  if not seen or seen < iso then
    redis.call('HSET', KEYS[4], 'lastSeen', iso)
    fleetMove(KEYS[13], projectId, 'l', seen, iso, ARGV[9])
  end
  if status ~= 'online' and redis.call('SET', KEYS[7], '1', 'NX', 'EX', ARGV[8]) then wake = 1 end
end
-- Live views (docs/realtime.md): the pin:update of this value carries the device's next sequence number.
local route = {ARGV[14], ARGV[15], ARGV[16]}
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
publishDeviceEvent(route, projectId, ARGV[9], 'pin:update', {deviceId = ARGV[9], pin = pin, value = value, updatedAt = iso, seq = seq})
-- Commands: the write's record, queued, in the same step as its value (its `command` event follows
-- the value's pin:update); it moves on through command-4.lua.
local record = ''
if command then
  command.projectId = projectId
  record = cjson.encode(command)
  redis.call('SET', KEYS[11], record, 'EX', ARGV[12])
  redis.call('ZADD', KEYS[12], command.createdMs, command.id)
  redis.call('ZREMRANGEBYRANK', KEYS[12], 0, -(tonumber(ARGV[13]) + 1))
  publishDeviceEvent(route, projectId, ARGV[9], 'command', commandEvent(command, redis.call('HINCRBY', KEYS[1], 'seq', 1)))
end
local result = {'ok', projectId, status, wake, newer, superseded, acknowledged, record}
-- Threshold rules and their alarms (docs/alarms.md): quadruples of rule id; its state for this value,
-- '1' inside the condition, '0' out past the clear threshold, '=' in the clear band (hysteresis:
-- the state stays what it was); and the outbox intents a raise (0→1) and a clear (1→0) write,
-- each a JSON list of [type, payload JSON] ('' for none, '?' for not sent: checked above). Only edges write intents; a `notification`
-- intent at most once in ARGV[18] per rule and device (field `notified:{ruleId}`, the value's ms).
for i = 20, #ARGV, 4 do
  local previous = redis.call('HGET', KEYS[6], ARGV[i])
  local state = ARGV[i + 1]
  if state ~= '=' and state ~= previous then redis.call('HSET', KEYS[6], ARGV[i], state) end
  local intents = ''
  if state == '1' and previous ~= '1' then
    result[#result + 1] = ARGV[i]
    intents = ARGV[i + 2]
  elseif state == '0' and previous == '1' then
    intents = ARGV[i + 3]
  end
  if intents ~= '' then
    for _, intent in ipairs(cjson.decode(intents)) do
      -- A rule's notification for this device at most once in ARGV[18] (DESIGN §11: a minute): a
      -- crossing sooner after the last one notified still moves the alarm, and notifies nobody.
      local write = true
      if intent[1] == 'notification' then
        local field = 'notified:' .. ARGV[i]
        local last = tonumber(redis.call('HGET', KEYS[6], field) or '')
        if last and tonumber(ARGV[3]) - last < tonumber(ARGV[18]) then write = false else redis.call('HSET', KEYS[6], field, ARGV[3]) end
      end
      if write then redis.call('XADD', KEYS[9], '*', 'type', intent[1], 'payload', intent[2]) end
    end
  end
end
return result
