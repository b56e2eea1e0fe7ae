-- Claims serials of a template for the devices they make (store/provisioning.ts), all or none:
-- a first boot claims one, a bulk import all of its rows' at once. Of two claims of one serial,
-- the first takes it and the other is refused, whichever path each came from.
-- KEYS: 1 template:{id}:serials. ARGV: a serial and its device id for each claim (one or more).
-- Returns the serials that were claimed already (nothing claimed then), or an empty list (all claimed).
local taken = {}
for i = 1, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 1 then taken[#taken + 1] = ARGV[i] end
end
if #taken > 0 then return taken end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return taken
