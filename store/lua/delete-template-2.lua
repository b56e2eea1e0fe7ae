-- A template's delete (store/templates.ts): refused while any device has it, else the record and
-- its device set go in one step.
-- KEYS: 1 template:{id}, 2 template:{id}:devices.
-- Returns {1, 0} deleted, {0, n} refused (n devices have it), {-1, 0} gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0} end
local used = redis.call('SCARD', KEYS[2])
if used > 0 then return {0, used} end
redis.call('DEL', KEYS[1], KEYS[2])
return {1, 0}
