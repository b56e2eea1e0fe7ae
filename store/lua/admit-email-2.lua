-- Whether a notification may be emailed (store/email-admission.ts, docs/limits.md "Email"): at most
-- one email per rule and device a minute, at most the daily cap per account (the project owner),
-- both in the owner's slot. A retry of an email admitted before is admitted again and counted once.
-- KEYS: 1 the rule and device's last emailed notification (user:{owner}:mail:m:...),
--       2 the ids the owner's rules emailed today (user:{owner}:mail:d:<day>).
-- ARGV: 1 notification id, 2 daily cap, 3 seconds the day's set is kept, 4 seconds between emails
--       of one rule and device.
-- Returns 'ok', 'throttled' (the rule and device emailed within the interval) or 'capped'.
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 'ok' end
local last = redis.call('GET', KEYS[1])
if last and last ~= ARGV[1] then return 'throttled' end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'capped' end
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[4])
return 'ok'
