-- Raw read of a pin's history (store/pin-series.ts): the newest `limit` numeric points of the
-- window, returned oldest first as flat [ms, value, ...]. Reads newest first in pages, so a small
-- limit never scans the whole window.
-- KEYS: 1 device:{id}:pin:{pin}:history. ARGV: 1 from ms, 2 to ms, 3 limit.
-- #include lib/numeric.lua
local limit = tonumber(ARGV[3])
local page = math.max(limit, 256)
local picked, offset = {}, 0
while #picked < limit * 2 do
  local members = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[2], ARGV[1], 'LIMIT', offset, page)
  for _, m in ipairs(members) do
    if #picked >= limit * 2 then break end
    local ts, n = numeric(m)
    if ts then picked[#picked + 1] = n; picked[#picked + 1] = ts end
  end
  if #members < page then break end
  offset = offset + page
end
local out = {}
for i = #picked, 1, -2 do out[#out + 1] = tostring(picked[i]); out[#out + 1] = string.format('%.17g', picked[i - 1]) end
return out
