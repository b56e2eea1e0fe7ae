import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';
import { parseLatestValue } from './latest-value';

/**
 * Reads and range deletes of a pin's history, computed inside Redis so a day of per-second points
 * (86,400) never crosses the wire to be aggregated (series-*.lua). History members are `${ms}:${value}`.
 */
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

const raw = luaScript('series-raw-1');
const aggregate = luaScript('series-aggregate-1');
const deleteRange = luaScript('series-delete-range-2');

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
