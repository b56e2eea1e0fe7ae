-- deleteDevice(deviceId): deletes a device with its credentials' lookup keys, pin data, rules and
-- widgets (its history is in PostgreSQL: gateway/retire-devices.ts); 0 when it did not exist, 1 when
-- deleted. Every key is derived from the key scheme templates in ARGV[1] (built from
-- common/redis-keys.ts: {id}, {hash} stand for the parts).
local T = cjson.decode(ARGV[1])
local function key(template, id)
  return (string.gsub(template, '{id}', id))
end
local function deleteDevice(deviceId)
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
  return 1
end
