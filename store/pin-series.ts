import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import { waitPersisted } from './history-stream';
import { luaScript } from './lua/load';
import { parseLatestValue } from './latest-value';
import { deleteDeviceHistory, deletePointRange, newestPoint } from './pg/history-deletes';
import { aggregatePoints, rawPointPages, rawPoints, textPoints, type NumericPoint, type TextPoint } from './pg/history-reads';
import type { Pool } from './pg/pool';
import { withPostgres } from './pg/unavailable';

/**
 * Pin history: reads, range deletes and device forgetting, in PostgreSQL (store/pg/). Points reach
 * it through the history stream; every operation here first waits until the points written before
 * it are persisted (waitPersisted), so a read returns what was just written and a delete removes it.
 * PostgreSQL down: DependencyUnavailableError('postgres'), a 503 naming it.
 */
export const AGGREGATES = ['avg', 'min', 'max', 'sum'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

export const INTERVALS = { '1m': 60_000, '5m': 300_000, '1h': 3_600_000, '1d': 86_400_000 } as const;
export type Interval = keyof typeof INTERVALS;

export type Point = NumericPoint;

/** How long an operation waits for the points written before it to reach PostgreSQL. */
const SETTLE_TIMEOUT_MS = 3_000;

const replaceLatest = luaScript('replace-latest-1');

/** `streams`: the history stream family (keys.historyStream); a device's points wait in its shard's stream. */
export function createPinSeriesStore(redis: Redis, pool: Pool, streams: string) {
  const settledFor = (deviceIds: readonly string[]) =>
    Promise.all(
      [...new Set(deviceIds.map((id) => streamOf(streams, id)))].map((stream) => waitPersisted(redis, stream, SETTLE_TIMEOUT_MS)),
    );
  return {
    /** The newest `limit` numeric points of [from, to], oldest first. */
    async raw(deviceId: string, pin: string, from: Date, to: Date, limit: number): Promise<Point[]> {
      await settledFor([deviceId]);
      return withPostgres(() => rawPoints(pool, deviceId, pin, from, to, limit));
    },

    /** The same points as `raw`, in pages from the database (a streamed response never holds them all). */
    async *rawPages(deviceId: string, pin: string, from: Date, to: Date, limit: number): AsyncGenerator<Point[]> {
      await settledFor([deviceId]);
      const pages = rawPointPages(pool, deviceId, pin, { from, to, limit });
      for (;;) {
        const next = await withPostgres(() => pages.next());
        if (next.done) return;
        yield next.value;
      }
    },

    /** Per-bucket aggregates of [from, to] (from the one-minute rollups), newest `limit` buckets, oldest first. */
    async aggregate(
      deviceId: string,
      pin: string,
      window: { from: Date; to: Date },
      fn: Aggregate,
      interval: Interval,
      limit: number,
    ): Promise<Point[]> {
      await settledFor([deviceId]);
      return withPostgres(() => aggregatePoints(pool, deviceId, pin, window, fn, INTERVALS[interval], limit));
    },

    /** The newest `limit` points (any value) between `from` and `to` (either open), oldest first. */
    async text(deviceId: string, pin: string, window: { from: Date | null; to: Date | null; limit: number }): Promise<TextPoint[]> {
      await settledFor([deviceId]);
      return withPostgres(() => textPoints(pool, deviceId, pin, window));
    },

    /**
     * Deletes the points between `from` and `to` (either open); returns how many went. When the
     * latest value was one of them it falls back to the newest point left, or goes with the last one.
     */
    async deleteRange(deviceId: string, pin: string, from: Date | null, to: Date | null): Promise<number> {
      await settledFor([deviceId]);
      const before = await redis.hget(keys.devicePins(deviceId), pin);
      const deleted = await withPostgres(() => deletePointRange(pool, deviceId, pin, from, to));
      const latest = parseLatestValue(before);
      const taken = latest && (!from || latest.updatedAt >= from.toISOString()) && (!to || latest.updatedAt <= to.toISOString());
      if (before !== null && taken) {
        const left = await withPostgres(() => newestPoint(pool, deviceId, pin));
        const replacement = left ? JSON.stringify({ value: left.value, updatedAt: left.timestamp }) : '';
        await replaceLatest(redis, [keys.devicePins(deviceId)], [pin, before, replacement]);
      }
      return deleted;
    },

    /** Removes every point of devices that were deleted (after those still in the stream are persisted). */
    async forgetDevices(deviceIds: readonly string[]): Promise<void> {
      await settledFor(deviceIds);
      await withPostgres(() => deleteDeviceHistory(pool, deviceIds));
    },

    /** The latest value of a pin, or null when none was ever recorded (or all were deleted). */
    async latest(deviceId: string, pin: string): Promise<{ value: string; timestamp: string } | null> {
      const latest = parseLatestValue(await redis.hget(keys.devicePins(deviceId), pin));
      return latest ? { value: latest.value, timestamp: latest.updatedAt } : null;
    },
  };
}

export type PinSeriesStore = ReturnType<typeof createPinSeriesStore>;
