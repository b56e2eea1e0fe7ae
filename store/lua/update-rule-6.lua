-- Compare-and-set of a notification rule that may move it between devices (store/rules.ts); the
-- twins of both devices are told through the outbox in the same step.
-- KEYS: 1 rule:{id}, 2 old device:{id}:rules, 3 old device:{id}:rule-state, 4 new device:{id},
--       5 new device:{id}:rules, 6 the outbox stream
-- ARGV: 1 the JSON the rule must still hold, 2 its replacement, 3 rule id, 4 projectId,
--       5 '1' to reset the edge state, 6 the rules-changed intent's payload
-- Returns the intent's entry id when written; 0 changed meanwhile, -1 gone, -2 the new device is not in the project.
-- #include lib/outbox.lua
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[4], 'projectId') ~= ARGV[4] then return -2 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SREM', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[5], ARGV[3])
if ARGV[5] == '1' then redis.call('HDEL', KEYS[3], ARGV[3]) end
return writeIntent(KEYS[6], 'rules-changed', ARGV[6])
