-- History members are `${ms}:${value}`; only values that parse as finite numbers count (DESIGN §5).
-- numeric(member) returns ms, number, or nil for a value that is not a finite number.
local function numeric(member)
  local sep = string.find(member, ':', 1, true)
  local n = tonumber(string.sub(member, sep + 1))
  if n == nil or n ~= n or n == math.huge or n == -math.huge then return nil end
  return tonumber(string.sub(member, 1, sep - 1)), n
end
