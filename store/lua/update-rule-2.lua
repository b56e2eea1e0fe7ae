-- Compare-and-set of a notification rule (store/rules.ts) with its rules-changed intent, in the
-- record's own slot (its shard's outbox stream): the twins named in the payload (the old and the
-- new device, or the rule's fleet) are told exactly when the change lands. Moving the rule's id
-- between indexes is done in the steps before and after (docs/architecture.md "Redis Cluster").
-- KEYS: 1 rule:{id}, 2 the outbox stream of its shard.
-- ARGV: 1 the JSON the rule must still hold, 2 its replacement, 3 the rules-changed intent's payload
-- Returns the intent's entry id when written; 0 changed meanwhile, -1 gone.
-- #include lib/outbox.lua
local current = redis.call('GET', KEYS[1])
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return writeIntent(KEYS[2], 'rules-changed', ARGV[3])
