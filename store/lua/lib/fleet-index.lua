-- The fleet index (docs/jobs.md "Fleet search: the index"; read by store/fleet-index.ts): one sorted
-- set per shard, in the devices' slot, every member at score 0 so ZRANGEBYLEX finds ranges. A
-- device's entries are `projectId \0 kind \0 value \0 deviceId`, one per field the device list
-- filters on: n name, t each tag, m template, s serial, f firmware version, o `online` while the
-- mirror says so, l lastSeen (ISO 8601 UTC, which compares like the times); and per project
-- `projectId \0 V \0 version` for each firmware version seen (the versions a firmware filter
-- weighs). Each script that changes one of those fields moves its entry in the same step.

local function fleetMember(projectId, kind, value, id)
  return projectId .. '\0' .. kind .. '\0' .. value .. '\0' .. id
end

-- Moves a device's entry of one kind from `old` to `new` (nil, false or '' for none).
local function fleetMove(key, projectId, kind, old, new, id)
  if old == '' then old = nil end
  if new == '' then new = nil end
  if old == new then return end
  if old then redis.call('ZREM', key, fleetMember(projectId, kind, old, id)) end
  if new then
    redis.call('ZADD', key, 0, fleetMember(projectId, kind, new, id))
    if kind == 'f' then redis.call('ZADD', key, 0, projectId .. '\0V\0' .. new) end
  end
end

-- The tags of a device hash's `tags` field (a JSON list), as a set.
local function fleetTags(json)
  local set = {}
  if json and json ~= '' then
    for _, t in ipairs(cjson.decode(json)) do set[t] = true end
  end
  return set
end

-- Moves a device's tag entries from the tags JSON `old` to `new`.
local function fleetMoveTags(key, projectId, old, new, id)
  local before, after = fleetTags(old), fleetTags(new)
  for t in pairs(before) do
    if not after[t] then fleetMove(key, projectId, 't', t, nil, id) end
  end
  for t in pairs(after) do
    if not before[t] then fleetMove(key, projectId, 't', nil, t, id) end
  end
end

-- Whether a mirrored status puts the device in the `online` entry.
local function fleetOnline(status)
  if status == 'online' then return 'online' end
  return nil
end

-- Adds (`present` true) or removes every entry of the device as its hash and mirror hold it now.
local function fleetIndexDevice(key, deviceKey, stateKey, id, present)
  local d = redis.call('HMGET', deviceKey, 'projectId', 'name', 'tags', 'templateId', 'serial')
  if not d[1] then return end
  local s = redis.call('HMGET', stateKey, 'status', 'firmwareVersion', 'lastSeen')
  local function entry(kind, value)
    if present then fleetMove(key, d[1], kind, nil, value, id) else fleetMove(key, d[1], kind, value, nil, id) end
  end
  entry('n', d[2])
  entry('m', d[4])
  entry('s', d[5])
  entry('o', fleetOnline(s[1]))
  entry('f', s[2])
  entry('l', s[3])
  for t in pairs(fleetTags(d[3])) do entry('t', t) end
end
