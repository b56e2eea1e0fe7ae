-- The device's step of a device delete (store/lua/cascade.ts): every key of the device (all in its
-- slot) goes, with its device-retire intent (its twin ends, its broker account goes, its history in
-- PostgreSQL goes) in its shard's outbox, in one atomic step: from here the device is gone for
-- every reader. What lives in other slots (credential lookups, rule and widget records, the
-- project's indexes) is removed in the steps after; readers of those check the device or the
-- record's binding first (docs/architecture.md "Redis Cluster").
-- KEYS: 1 device:{id}, 2 the outbox stream of its shard, 3 device:{id}:rules, 4 device:{id}:widgets,
--       5..12 the device's other keys (5 device:{id}:state), 13 the fleet index of its shard, whose
--       entries of the device (lib/fleet-index.lua) go in the same step.
-- ARGV: 1 device id, 2 '1' to write the device-retire intent ('0': a project delete wrote it).
-- Returns nil when it did not exist, else JSON {entryId ('' without intent), projectId, ownerId
-- (its project owner's, whose devices quota it counts in; false when not recorded), tokenHashes,
-- rules, widgets, templateId (false when none)}.
-- #include lib/fleet-index.lua
local projectId = redis.call('HGET', KEYS[1], 'projectId')
if not projectId then return nil end
fleetIndexDevice(KEYS[13], KEYS[1], KEYS[5], ARGV[1], false)
local tokenHashes = {}
for _, field in ipairs({'tokenHash', 'simpleTokenHash'}) do
  local h = redis.call('HGET', KEYS[1], field)
  if h then tokenHashes[field] = h end
end
local rules = redis.call('SMEMBERS', KEYS[3])
local widgets = redis.call('SMEMBERS', KEYS[4])
local ownerId = redis.call('HGET', KEYS[1], 'ownerId')
local templateId = redis.call('HGET', KEYS[1], 'templateId')
redis.call('DEL', KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[12])
redis.call('DEL', KEYS[1])
local entryId = ''
if ARGV[2] == '1' then
  entryId = redis.call('XADD', KEYS[2], '*', 'type', 'device-retire', 'payload', cjson.encode({deviceId = ARGV[1]}))
end
return cjson.encode({entryId = entryId, projectId = projectId, ownerId = ownerId, tokenHashes = tokenHashes, rules = rules, widgets = widgets,
  templateId = templateId})
