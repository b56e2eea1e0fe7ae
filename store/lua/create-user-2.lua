-- Creates the user and claims the email in one step (store/users.ts).
-- KEYS: 1 user:{id}, 2 user:email:{email}. ARGV: 1 id, 2 email, 3 name, 4 plan, 5 createdAt, 6 passwordHash.
-- Returns 1 created, 0 the email is taken.
if redis.call('SETNX', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'email', ARGV[2], 'name', ARGV[3], 'plan', ARGV[4],
  'createdAt', ARGV[5], 'passwordHash', ARGV[6])
return 1
