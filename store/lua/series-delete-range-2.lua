-- Deletes the points of a pin's history in [from, to] ('-inf'/'+inf' when open) (store/pin-series.ts).
-- When the latest value was one of them it is replaced by the newest point left, or removed with the last one.
-- KEYS: 1 device:{id}:pin:{pin}:history, 2 device:{id}:pins.
-- ARGV: 1 from ms, 2 to ms, 3 pin, 4 from ISO ('' when open), 5 to ISO ('~' when open). Returns the count.
-- #include lib/iso-time.lua
local removed = redis.call('ZREMRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2])
local latest = redis.call('HGET', KEYS[2], ARGV[3])
if not latest then return removed end
local ok, parsed = pcall(cjson.decode, latest)
local at = ok and type(parsed) == 'table' and parsed.updatedAt or ''
if at < ARGV[4] or at > ARGV[5] then return removed end
local newest = redis.call('ZREVRANGE', KEYS[1], 0, 0)[1]
if newest then
  local sep = string.find(newest, ':', 1, true)
  local value = string.sub(newest, sep + 1)
  redis.call('HSET', KEYS[2], ARGV[3], cjson.encode({value = value, updatedAt = iso(tonumber(string.sub(newest, 1, sep - 1)))}))
else
  redis.call('HDEL', KEYS[2], ARGV[3])
end
return removed
