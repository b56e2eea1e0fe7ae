-- Devices (or a widget) take their place among a template's devices (store/templates.ts): only
-- while the template exists, in one step with the template delete's check (delete-template-2.lua),
-- so nothing is left naming a template that was deleted meanwhile.
-- KEYS: 1 template:{id}, 2 template:{id}:devices. ARGV: the ids (one or more; a bulk import's thousands).
-- Returns 1 claimed (or there already), 0 the template is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV, 500 do
  redis.call('SADD', KEYS[2], unpack(ARGV, i, math.min(i + 499, #ARGV)))
end
return 1
