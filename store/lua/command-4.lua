-- Moves one command (store/commands.ts) in one atomic step; nothing once the device is gone. A
-- command is made, queued, by the ingest step of its write (store-point-13.lua).
-- KEYS: 1 device:{id}, 2 command:{commandId}, 3 device:{id}:state, 4 device:{id}:pins
-- ARGV: 1 the state to move to (sent, acknowledged, expired, superseded), 2 the time (ISO),
--       3 the states it may move from (comma-separated), 4 the device id the command must belong to,
--       5–7 where the device's events are published (lib/device-events.lua)
-- A command sent is awaited on its pin (field `ack:{pin}` of device:{id}:state, {commandId, value}):
-- the device acknowledges it by publishing the same value there (store-point-13.lua) or its id on
-- `{root}/{id}/ack`. A device that echoed before its command was marked sent (the echo overtook the
-- sender's move) has it acknowledged by the move: the pin's latest value is the device's own, equal
-- to the command's, reported since the command was made. A command sent in place of another one
-- still awaited on the pin returns that
-- one's id, for the caller to move it to superseded (store/commands.ts). A move publishes the
-- command's `command` event (docs/realtime.md) in the same step. Returns {record JSON, 1 changed |
-- 0 not (another state), the id of the command it replaced as awaited or ''}, or nil when the
-- device or the command does not exist (or the command is another device's).
-- #include lib/device-events.lua
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local json = redis.call('GET', KEYS[2])
if not json then return nil end
local c = cjson.decode(json)
if c.deviceId ~= ARGV[4] then return nil end
local allowed = false
for from in string.gmatch(ARGV[3], '[^,]+') do
  if c.state == from then allowed = true end
end
if not allowed then return {json, 0, ''} end
c.state = ARGV[1]
local awaitField = 'ack:' .. c.pin
local replaced = ''
local function echoed()
  local ok, latest = pcall(cjson.decode, redis.call('HGET', KEYS[4], c.pin) or 'null')
  if not ok or type(latest) ~= 'table' or latest.origin ~= 'device' or latest.value ~= c.value then return false end
  return type(latest.reportedAt) == 'string' and latest.reportedAt >= c.createdAt
end
if ARGV[1] == 'sent' and echoed() then
  c.sentAt = ARGV[2]
  c.state = 'acknowledged'
  c.acknowledgedAt = ARGV[2]
elseif ARGV[1] == 'sent' then
  c.sentAt = ARGV[2]
  local waiting = redis.call('HGET', KEYS[3], awaitField)
  if waiting then
    local previous = cjson.decode(waiting).commandId
    if previous ~= c.id then replaced = previous end
  end
  redis.call('HSET', KEYS[3], awaitField, cjson.encode({commandId = c.id, value = c.value}))
elseif ARGV[1] == 'acknowledged' then
  c.acknowledgedAt = ARGV[2]
  local waiting = redis.call('HGET', KEYS[3], awaitField)
  if waiting and cjson.decode(waiting).commandId == c.id then redis.call('HDEL', KEYS[3], awaitField) end
end
local out = cjson.encode(c)
redis.call('SET', KEYS[2], out, 'KEEPTTL')
publishDeviceEvent({ARGV[5], ARGV[6], ARGV[7]}, c.projectId, c.deviceId, 'command', commandEvent(c, redis.call('HINCRBY', KEYS[1], 'seq', 1)))
return {out, 1, replaced}
