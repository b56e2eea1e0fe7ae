-- Compare-and-set of a notification rule that may move it between devices (store/rules.ts).
-- KEYS: 1 rule:{id}, 2 old device:{id}:rules, 3 old device:{id}:rule-state, 4 new device:{id}, 5 new device:{id}:rules
-- ARGV: 1 the JSON the rule must still hold, 2 its replacement, 3 rule id, 4 projectId, 5 '1' to reset the edge state
-- Returns 1 written, 0 changed meanwhile, -1 gone, -2 the new device is not in the project.
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
if redis.call('HGET', KEYS[4], 'projectId') ~= ARGV[4] then return -2 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SREM', KEYS[2], ARGV[3])
redis.call('SADD', KEYS[5], ARGV[3])
if ARGV[5] == '1' then redis.call('HDEL', KEYS[3], ARGV[3]) end
return 1
