-- A device takes its place among a template's devices (store/templates.ts): only while the template
-- exists, in one step with the template delete's check (delete-template-2.lua), so no device is
-- left naming a template that was deleted meanwhile.
-- KEYS: 1 template:{id}, 2 template:{id}:devices. ARGV: 1 device id.
-- Returns 1 claimed (or there already), 0 the template is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SADD', KEYS[2], ARGV[1])
return 1
