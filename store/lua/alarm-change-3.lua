-- Changes one alarm in one atomic step (store/alarms.ts). One record per rule and device: the
-- field rule id of device:{id}:alarms, JSON (contracts.ts Alarm, plus lastEdgeId).
-- KEYS: 1 device:{id}, 2 device:{id}:alarms, 3 device:{id}:rule-state
-- ARGV: 1 op: raise | clear | clear-by-user | acknowledge, 2 rule id, 3 the time to record (ISO),
--       4 raise: the alarm as a first raise makes it (JSON); acknowledge: the user id; else '',
--       5–7 where the device's events are published (lib/device-events.lua)
-- A raise of an edge already applied (lastEdgeId) changes nothing; a raise while active updates
-- the record (count, value, last raised), one on a cleared alarm makes it active and unacknowledged
-- again. A clear by a user also forgets the rule's edge state, so a value inside raises it anew.
-- A change publishes its `alarm` event (docs/realtime.md) to the rooms of the alarm's project and
-- device in the same step.
-- Returns {alarm JSON, 1 changed | 0 unchanged}, or nil when the device does not exist or (but for raise) the alarm does not.
-- #include lib/device-events.lua
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local op, ruleId, at = ARGV[1], ARGV[2], ARGV[3]
local current = redis.call('HGET', KEYS[2], ruleId)
local alarm = nil
if current then alarm = cjson.decode(current) end
local changed = false
if op == 'raise' then
  local raised = cjson.decode(ARGV[4])
  if alarm == nil then
    alarm = raised
    changed = true
  elseif alarm.lastEdgeId ~= raised.lastEdgeId then
    if alarm.state ~= 'active' then
      alarm.state = 'active'
      alarm.acknowledged = false
      alarm.acknowledgedAt = cjson.null
      alarm.acknowledgedBy = cjson.null
      alarm.clearedAt = cjson.null
    end
    alarm.raisedCount = alarm.raisedCount + 1
    alarm.lastRaisedAt = raised.lastRaisedAt
    alarm.value = raised.value
    alarm.severity = raised.severity
    alarm.lastEdgeId = raised.lastEdgeId
    changed = true
  end
elseif alarm == nil then
  return nil
elseif op == 'acknowledge' then
  if not alarm.acknowledged then
    alarm.acknowledged = true
    alarm.acknowledgedAt = at
    alarm.acknowledgedBy = ARGV[4]
    changed = true
  end
elseif alarm.state == 'active' then
  alarm.state = 'cleared'
  alarm.clearedAt = at
  changed = true
  if op == 'clear-by-user' then redis.call('HDEL', KEYS[3], ruleId) end
end
local json = cjson.encode(alarm)
if changed then
  redis.call('HSET', KEYS[2], ruleId, json)
  local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
  publishDeviceEvent({ARGV[5], ARGV[6], ARGV[7]}, alarm.projectId, alarm.deviceId, 'alarm', alarmEvent(alarm, seq))
  return {json, 1}
end
return {json, 0}
