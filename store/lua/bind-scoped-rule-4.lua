-- The project step of a scoped rule's create or move (store/rules.ts): adds the rule's id to the
-- project's scoped rules and bumps its rules version, only while the project exists, in one step in
-- the project's slot (the record is written in its own slot, before). A create writes its
-- rules-changed intent here, so the fleet catch-up reads the rule bound.
-- KEYS: 1 project:{id}, 2 its :scoped-rules, 3 its :rules-version, 4 the outbox stream of its shard.
-- ARGV: 1 rule id, 2 intent type ('' for none), 3 its payload.
-- Returns 0 when the project is gone, else the intent's entry id, or 1 without one.
-- #include lib/outbox.lua
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[3])
return writeIntent(KEYS[4], ARGV[2], ARGV[3])
