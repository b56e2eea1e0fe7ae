import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { redisScript } from '../common/redis-script';
import { parseLatestValue } from './latest-value';

/**
 * Reads and range deletes of a pin's history, computed inside Redis so a day of per-second points
 * (86,400) never crosses the wire to be aggregated. History members are `${ms}:${value}`.
 * Only values that parse as finite numbers count (DESIGN §5).
 */
const NUMERIC = `
local function numeric(member)
  local sep = string.find(member, ':', 1, true)
  local n = tonumber(string.sub(member, sep + 1))
  if n == nil or n ~= n or n == math.huge or n == -math.huge then return nil end
  return tonumber(string.sub(member, 1, sep - 1)), n
end
`;

/**
 * Raw: the newest `limit` numeric points of the window, returned oldest first as flat
 * [ms, value, …]. Reads newest first in pages, so a small limit never scans the whole window.
 */
const RAW = `${NUMERIC}
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
return out`;

/** Aggregate per UTC-aligned bucket: flat [bucketMs, value, …] oldest first, empty buckets left out. */
const AGGREGATE = `${NUMERIC}
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
return out`;

/** Epoch milliseconds → ISO 8601 UTC, as JavaScript's toISOString writes it (days-from-civil). */
const ISO = `
local function iso(ms)
  local s = math.floor(ms / 1000)
  local days, rem = math.floor(s / 86400), s % 86400
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400 + (m <= 2 and 1 or 0)
  return string.format('%04d-%02d-%02dT%02d:%02d:%02d.%03dZ', y, m, d,
    math.floor(rem / 3600), math.floor(rem % 3600 / 60), rem % 60, ms % 1000)
end
`;

/**
 * Deletes the points in [from, to] ('-inf'/'+inf' when open). When the latest value was one of
 * them it is replaced by the newest point left, or removed with the last one. Returns the count.
 */
const DELETE_RANGE = `${ISO}
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
return removed`;

export const AGGREGATES = ['avg', 'min', 'max', 'sum'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

export const INTERVALS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': 86_400_000 } as const;
export type Interval = keyof typeof INTERVALS;

export interface Point {
  timestamp: string;
  value: number;
}

function toPoints(flat: string[]): Point[] {
  const points: Point[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    points.push({ timestamp: new Date(Number(flat[i])).toISOString(), value: Number(flat[i + 1]) });
  }
  return points;
}

const raw = redisScript(RAW);
const aggregate = redisScript(AGGREGATE);
const deleteRange = redisScript(DELETE_RANGE);

export function createPinSeriesStore(redis: Redis) {
  return {
    async raw(deviceId: string, pin: string, from: Date, to: Date, limit: number): Promise<Point[]> {
      const flat = (await raw(redis, [keys.pinHistory(deviceId, pin)], [from.getTime(), to.getTime(), limit])) as string[];
      return toPoints(flat);
    },

    async aggregate(
      deviceId: string,
      pin: string,
      window: { from: Date; to: Date },
      fn: Aggregate,
      interval: Interval,
      limit: number,
    ): Promise<Point[]> {
      const flat = (await aggregate(
        redis,
        [keys.pinHistory(deviceId, pin)],
        [window.from.getTime(), window.to.getTime(), INTERVALS[interval], fn, limit],
      )) as string[];
      return toPoints(flat);
    },

    /** Deletes the points between `from` and `to` (either open); returns how many went. */
    async deleteRange(deviceId: string, pin: string, from: Date | null, to: Date | null): Promise<number> {
      return (await deleteRange(
        redis,
        [keys.pinHistory(deviceId, pin), keys.devicePins(deviceId)],
        [
          from ? from.getTime() : '-inf',
          to ? to.getTime() : '+inf',
          pin,
          from ? from.toISOString() : '',
          to ? to.toISOString() : '~',
        ],
      )) as number;
    },

    /** The latest value of a pin, or null when none was ever recorded (or all were deleted). */
    async latest(deviceId: string, pin: string): Promise<{ value: string; timestamp: string } | null> {
      const latest = parseLatestValue(await redis.hget(keys.devicePins(deviceId), pin));
      return latest ? { value: latest.value, timestamp: latest.updatedAt } : null;
    },
  };
}

export type PinSeriesStore = ReturnType<typeof createPinSeriesStore>;
