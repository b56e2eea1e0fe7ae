-- Replaces a pin's latest value after a range delete took it (store/pin-series.ts), only while the
-- hash still holds what was read before the delete: a value written meanwhile is newer and stays.
-- KEYS: 1 device:{id}:pins. ARGV: 1 pin, 2 the JSON it must still hold, 3 its replacement ('' removes it).
-- Returns 1 replaced, 0 changed meanwhile.
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
return 1
