-- Aggregate of a pin's history per UTC-aligned bucket (store/pin-series.ts), computed inside Redis
-- so a day of per-second points never crosses the wire: flat [bucketMs, value, ...] oldest first,
-- empty buckets left out.
-- KEYS: 1 device:{id}:pin:{pin}:history. ARGV: 1 from ms, 2 to ms, 3 bucket ms, 4 avg|min|max|sum, 5 limit.
-- #include lib/numeric.lua
local members = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[2])
local size, fn, limit = tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5])
local order, acc = {}, {}
for _, m in ipairs(members) do
  local ts, n = numeric(m)
  if ts then
    local b = ts - (ts % size)
    local a = acc[b]
    if not a then
      a = {sum = 0, count = 0, min = n, max = n}
      acc[b] = a
      order[#order + 1] = b
    end
    a.sum = a.sum + n
    a.count = a.count + 1
    if n < a.min then a.min = n end
    if n > a.max then a.max = n end
  end
end
local out = {}
local first = math.max(1, #order - limit + 1)
for i = first, #order do
  local a = acc[order[i]]
  local v = a.sum
  if fn == 'avg' then v = a.sum / a.count elseif fn == 'min' then v = a.min elseif fn == 'max' then v = a.max end
  out[#out + 1] = tostring(order[i])
  out[#out + 1] = string.format('%.17g', v)
end
return out
