import type { Redis } from 'ioredis';
import { keys } from '../../common/redis-keys';
import type { Pool } from '../../store/pg/pool';

/** Sum of ZCARD over the keys, in one pipeline. */
export async function countPoints(redis: Redis, keys: readonly string[]): Promise<number> {
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.zcard(key);
  const replies = (await pipeline.exec()) ?? [];
  return replies.reduce((sum, [err, n]) => sum + (err ? 0 : Number(n)), 0);
}

export interface StoredPoint {
  /** When the writer stored it (epoch ms). */
  storedAt: number;
  /** The member's value part: here the publisher's send time. */
  value: string;
}

/** How many points the devices' pin has in PostgreSQL. */
export async function countStoredPoints(pool: Pool, deviceIds: readonly string[], pin: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM points WHERE device_id = ANY($1::uuid[]) AND pin = $2', [
    deviceIds,
    pin,
  ]);
  return rows[0]?.n ?? 0;
}

/**
 * Every point of the devices' pin in PostgreSQL. A device's own value is stamped when ingest took
 * it (its point's ts), so `storedAt` is that; here the value is the publisher's send time.
 */
export async function readStoredPoints(pool: Pool, deviceIds: readonly string[], pin: string): Promise<StoredPoint[]> {
  const { rows } = await pool.query<{ at: string; value: string }>(
    'SELECT (extract(epoch FROM ts) * 1000)::bigint::text AS at, value FROM points WHERE device_id = ANY($1::uuid[]) AND pin = $2',
    [deviceIds, pin],
  );
  return rows.map((r) => ({ storedAt: Number(r.at), value: r.value }));
}

/** How many of the devices the mirror shows online with their twins confirmed (no `statusAhead`: docs/architecture.md "Reconnect storms"). */
export async function countOnline(redis: Redis, deviceIds: readonly string[]): Promise<number> {
  const pipeline = redis.pipeline();
  for (const id of deviceIds) pipeline.hmget(keys.deviceState(id), 'status', 'statusAhead');
  const replies = (await pipeline.exec()) ?? [];
  return replies.filter(([err, fields]) => {
    const [status, ahead] = (fields ?? []) as (string | null)[];
    return !err && status === 'online' && ahead === null;
  }).length;
}
