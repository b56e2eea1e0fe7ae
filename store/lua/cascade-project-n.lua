-- Deletes a project with its members' links and read state, devices, rules, widgets and notifications in one
-- atomic step (store/lua/cascade.ts).
-- Key count: KEYS holds only the root (project:{id}); every other key is derived inside from the
-- key scheme templates, since which devices, members and records exist is only known inside Redis.
-- KEYS: 1 project:{id}, 2 the outbox stream. ARGV: 1 key scheme templates (JSON), 2 project id.
-- Returns each deleted device's id followed by its device-retire intent's entry id
-- ({} when the project did not exist).
-- #include lib/delete-device.lua
local projectId = ARGV[2]
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local retired = {}
for _, deviceId in ipairs(redis.call('ZRANGE', key(T.projectDevices, projectId), 0, -1)) do
  retired[#retired + 1] = deviceId
  retired[#retired + 1] = deleteDevice(deviceId, KEYS[2])
end
for _, userId in ipairs(redis.call('HKEYS', key(T.projectMembers, projectId))) do
  redis.call('ZREM', key(T.userProjects, userId), projectId)
  redis.call('DEL', (string.gsub(key(T.projectMemberUnreadNotifications, projectId), '{user}', userId)))
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
redis.call('DEL', KEYS[1], key(T.projectMembers, projectId),
  key(T.projectDevices, projectId), key(T.projectRules, projectId), key(T.projectWidgets, projectId),
  key(T.projectNotifications, projectId))
return retired
