-- deleteDevice(deviceId, outbox): deletes a device with its credentials' lookup keys, pin data,
-- rules and widgets, and writes its device-retire intent (its twin ends, its broker account goes,
-- its history in PostgreSQL goes) to the outbox stream in the same step; 0 when it did not exist,
-- else the intent's entry id. Every key is derived from the key scheme templates in ARGV[1]
-- (built from common/redis-keys.ts: {id}, {hash} stand for the parts).
local T = cjson.decode(ARGV[1])
local function key(template, id)
  return (string.gsub(template, '{id}', id))
end
local function deleteDevice(deviceId, outbox)
  local dkey = key(T.device, deviceId)
  local projectId = redis.call('HGET', dkey, 'projectId')
  if not projectId then return 0 end
  for _, field in ipairs({'tokenHash', 'simpleTokenHash'}) do
    local h = redis.call('HGET', dkey, field)
    if h then
      local lookup = field == 'tokenHash' and T.byToken or T.bySimpleToken
      redis.call('DEL', (string.gsub(lookup, '{hash}', h)))
    end
  end
  for _, ruleId in ipairs(redis.call('SMEMBERS', key(T.deviceRules, deviceId))) do
    redis.call('DEL', key(T.rule, ruleId))
    redis.call('SREM', key(T.projectRules, projectId), ruleId)
  end
  for _, widgetId in ipairs(redis.call('SMEMBERS', key(T.deviceWidgets, deviceId))) do
    redis.call('DEL', key(T.widget, widgetId))
    redis.call('SREM', key(T.projectWidgets, projectId), widgetId)
  end
  for _, template in ipairs(T.deviceOwned) do redis.call('DEL', key(template, deviceId)) end
  redis.call('DEL', dkey)
  redis.call('ZREM', key(T.projectDevices, projectId), deviceId)
  return redis.call('XADD', outbox, '*', 'type', 'device-retire', 'payload', cjson.encode({deviceId = deviceId}))
end
