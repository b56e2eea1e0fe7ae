-- Fixed-window counters over two keys in one atomic step: one user's minute and day
-- (store/rate-limits.ts; both keys carry the user's hash tag, so one slot).
-- A burst of concurrent requests from any number of nodes cannot overshoot. A refused request
-- counts against neither window.
-- KEYS: 1 minute counter, 2 day counter
-- ARGV: 1 minute limit, 2 day limit (-1: unlimited), 3 minute key expiry (Unix s), 4 day key expiry (Unix s),
--       5 '1' to count this request, '0' only to read the counters
-- Returns {allowed (1|0), minute count, day count} after this request.
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
local day = tonumber(redis.call('GET', KEYS[2]) or '0')
local dayLimit = tonumber(ARGV[2])
if minute >= tonumber(ARGV[1]) or (dayLimit >= 0 and day >= dayLimit) then return {0, minute, day} end
if ARGV[5] ~= '1' then return {1, minute, day} end
minute = redis.call('INCR', KEYS[1])
if minute == 1 then redis.call('EXPIREAT', KEYS[1], ARGV[3]) end
day = redis.call('INCR', KEYS[2])
if day == 1 then redis.call('EXPIREAT', KEYS[2], ARGV[4]) end
return {1, minute, day}
