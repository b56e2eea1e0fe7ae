import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';

/**
 * Cascade deletes, run inside Redis so a device or a project disappears in one atomic step.
 * The scripts get the key scheme as templates built from common/redis-keys.ts ({id}, {pin}, {hash}
 * stand for the parts), so the scheme is written down once.
 */
const templates = JSON.stringify({
  device: keys.device('{id}'),
  deviceOwned: [
    keys.deviceState('{id}'),
    keys.devicePins('{id}'),
    keys.deviceLocks('{id}'),
    keys.deviceRules('{id}'),
    keys.deviceRuleState('{id}'),
    keys.deviceWake('{id}'),
    keys.devicePending('{id}'),
    keys.deviceWidgets('{id}'),
  ],
  devicePins: keys.devicePins('{id}'),
  pinHistory: keys.pinHistory('{id}', '{pin}'),
  deviceRules: keys.deviceRules('{id}'),
  rule: keys.rule('{id}'),
  deviceWidgets: keys.deviceWidgets('{id}'),
  widget: keys.widget('{id}'),
  notification: keys.notification('{id}'),
  byToken: keys.deviceByToken('{hash}'),
  bySimpleToken: keys.deviceBySimpleToken('{hash}'),
  project: keys.project('{id}'),
  projectMembers: keys.projectMembers('{id}'),
  projectDevices: keys.projectDevices('{id}'),
  projectRules: keys.projectRules('{id}'),
  projectWidgets: keys.projectWidgets('{id}'),
  projectNotifications: keys.projectNotifications('{id}'),
  projectUnreadNotifications: keys.projectUnreadNotifications('{id}'),
  userProjects: keys.userProjects('{id}'),
});

const DELETE_DEVICE_FUNCTION = `
local T = cjson.decode(ARGV[1])
local function key(template, id, pin)
  local k = string.gsub(template, '{id}', id)
  if pin then k = string.gsub(k, '{pin}', pin) end
  return k
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
  for _, pin in ipairs(redis.call('HKEYS', key(T.devicePins, deviceId))) do
    redis.call('DEL', key(T.pinHistory, deviceId, pin))
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
`;

const DELETE_DEVICE = `${DELETE_DEVICE_FUNCTION}
return deleteDevice(ARGV[2])`;

const DELETE_PROJECT = `${DELETE_DEVICE_FUNCTION}
local projectId = ARGV[2]
if redis.call('EXISTS', key(T.project, projectId)) == 0 then return {} end
local devices = redis.call('ZRANGE', key(T.projectDevices, projectId), 0, -1)
for _, deviceId in ipairs(devices) do deleteDevice(deviceId) end
for _, userId in ipairs(redis.call('HKEYS', key(T.projectMembers, projectId))) do
  redis.call('ZREM', key(T.userProjects, userId), projectId)
end
for _, ruleId in ipairs(redis.call('SMEMBERS', key(T.projectRules, projectId))) do
  redis.call('DEL', key(T.rule, ruleId))
end
for _, widgetId in ipairs(redis.call('SMEMBERS', key(T.projectWidgets, projectId))) do
  redis.call('DEL', key(T.widget, widgetId))
end
for _, notificationId in ipairs(redis.call('ZRANGE', key(T.projectNotifications, projectId), 0, -1)) do
  redis.call('DEL', key(T.notification, notificationId))
end
redis.call('DEL', key(T.project, projectId), key(T.projectMembers, projectId),
  key(T.projectDevices, projectId), key(T.projectRules, projectId), key(T.projectWidgets, projectId),
  key(T.projectNotifications, projectId), key(T.projectUnreadNotifications, projectId))
return devices`;

/** Deletes a device with its credentials, pin data, history, rules and widgets; false when it did not exist. */
export async function deleteDeviceScript(redis: Redis, deviceId: string): Promise<boolean> {
  return (await redis.eval(DELETE_DEVICE, 0, templates, deviceId)) === 1;
}

/** Deletes a project with its members' links, devices, rules, widgets and notifications; returns the deleted device ids. */
export async function deleteProjectScript(redis: Redis, projectId: string): Promise<string[]> {
  return (await redis.eval(DELETE_PROJECT, 0, templates, projectId)) as string[];
}
