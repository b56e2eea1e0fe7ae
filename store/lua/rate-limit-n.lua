-- Fixed-window counters, checked and counted together in one atomic step: the service's one window
-- counter (store/window-counter.ts). Callers: a user's external minute and day (both keys carry the
-- user's hash tag, so one slot), a user's management minute, a login account, a client address at
-- login or register (each one key: those are in different slots, so each is its own step).
-- A burst of concurrent requests from any number of nodes cannot overshoot. A refused request is
-- counted in no window.
-- KEYS: the counters, all in one slot.
-- ARGV: 1 '1' to count this request, '0' only to read the counters; then per key i:
--       ARGV[2i] its limit (-1: none), ARGV[2i+1] its expiry (Unix s).
-- Returns {allowed (1|0), the count of each key after this request}.
local counts = {}
local allowed = 1
for i, key in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', key) or '0')
  local limit = tonumber(ARGV[2 * i])
  if limit >= 0 and counts[i] >= limit then allowed = 0 end
end
if allowed == 1 and ARGV[1] == '1' then
  for i, key in ipairs(KEYS) do
    counts[i] = redis.call('INCR', key)
    if counts[i] == 1 then redis.call('EXPIREAT', key, ARGV[2 * i + 1]) end
  end
end
table.insert(counts, 1, allowed)
return counts
