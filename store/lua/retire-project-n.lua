-- The project's step of a project delete (store/lua/cascade.ts): every key of the project (all in
-- its slot: the hash, members, indexes, each member's unread set) goes, with one device-retire
-- intent per device in its shard's outbox, in one atomic step: from here the project is gone for
-- every reader, and its devices' twins and broker accounts end even if the steps after (each
-- device's own delete, the members' indexes, the records) never run (docs/architecture.md
-- "Redis Cluster").
-- Key count: 11 declared, plus each member's unread set, derived inside from ARGV[1], and the
-- notification filter sets named in KEYS[8].
-- KEYS: 1 project:{id}, 2 the outbox stream of its shard, 3 :members, 4 :devices, 5 :rules,
--       6 :widgets, 7 :notifications, 8 :notifications:sets, 9 :templates, 10 :scoped-rules,
--       11 :rules-version.
-- ARGV: 1 a member's unread set with '{user}' for the user id.
-- Returns nil when it did not exist, else JSON {members, owner, devices: [[deviceId, entryId]...], rules, widgets,
-- notifications, templates}; owner is the member whose role is owner (false when none).
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local members, owner = {}, false
local roles = redis.call('HGETALL', KEYS[3])
for i = 1, #roles, 2 do
  members[#members + 1] = roles[i]
  if roles[i + 1] == 'owner' then owner = roles[i] end
end
local devices = {}
for _, deviceId in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  devices[#devices + 1] = {deviceId, redis.call('XADD', KEYS[2], '*', 'type', 'device-retire', 'payload', cjson.encode({deviceId = deviceId}))}
end
local result = {members = members, owner = owner, devices = devices, rules = redis.call('SMEMBERS', KEYS[5]),
  widgets = redis.call('SMEMBERS', KEYS[6]), notifications = redis.call('ZRANGE', KEYS[7], 0, -1),
  templates = redis.call('SMEMBERS', KEYS[9])}
for _, userId in ipairs(members) do
  redis.call('DEL', (string.gsub(ARGV[1], '{user}', userId)))
end
for _, set in ipairs(redis.call('ZRANGE', KEYS[8], 0, -1)) do redis.call('DEL', set) end
redis.call('DEL', KEYS[1], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11])
return cjson.encode(result)
