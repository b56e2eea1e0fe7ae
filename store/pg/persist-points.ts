import type { Pool } from './pool';

/** One point as the history stream carries it (keys.historyStream), with its stream entry id. */
export interface StreamPoint {
  /** The stream entry id (`ms-n`): the point's identity, whatever its value. */
  entryId: string;
  deviceId: string;
  pin: string;
  ms: number;
  value: string;
}

/** A value counts in aggregates when it reads as a finite number (DESIGN §5); the one rule, here. */
export function numericValue(value: string): number | null {
  if (value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/**
 * The stream entry id as the point's `seq` (a bigint): ms × 2^20 + the entry's sequence number.
 * Unique per stream (Redis ids only grow), so with the primary key (device_id, pin, ts, seq) a
 * point inserted again is the same row. 2^20 entries within one millisecond is beyond any Redis;
 * the product stays below 2^63 until the year 2248. Hand-made rows (bigserial) count up from 1.
 */
export function entrySeq(entryId: string): string {
  const [ms, n] = entryId.split('-');
  return ((BigInt(ms ?? '0') << 20n) + BigInt(n ?? '0')).toString();
}

/**
 * Inserts a batch of points and adds the numeric ones to their one-minute rollups, in one
 * statement (one transaction). Exactly once: a point already stored (a batch retried after a
 * crash between COMMIT and XACK, or taken over from a dead node) conflicts on its primary key and
 * is skipped, and only the rows actually inserted feed the rollups. Returns how many were new.
 */
export async function persistPoints(pool: Pool, points: readonly StreamPoint[]): Promise<number> {
  if (points.length === 0) return 0;
  const { rows } = await pool.query<{ inserted: string }>(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::bigint[], $5::text[], $6::float8[])
         AS t(device_id, pin, ms, seq, value, num)
     ),
     inserted AS (
       INSERT INTO points (device_id, pin, ts, seq, value, num)
       SELECT device_id, pin, to_timestamp(ms / 1000.0), seq, value, num FROM input
       ON CONFLICT (device_id, pin, ts, seq) DO NOTHING
       RETURNING device_id, pin, ts, num
     ),
     rolled AS (
       INSERT INTO rollup_1m AS r (device_id, pin, minute, count, sum, min, max)
       SELECT device_id, pin, date_trunc('minute', ts), count(*), sum(num), min(num), max(num)
       FROM inserted WHERE num IS NOT NULL
       GROUP BY 1, 2, 3
       ORDER BY 1, 2, 3 -- every writer locks buckets in one order: concurrent batches never deadlock
       ON CONFLICT (device_id, pin, minute) DO UPDATE SET
         count = r.count + excluded.count,
         sum = r.sum + excluded.sum,
         min = least(r.min, excluded.min),
         max = greatest(r.max, excluded.max)
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM rolled) AS buckets`,
    [
      points.map((p) => p.deviceId),
      points.map((p) => p.pin),
      points.map((p) => p.ms),
      points.map((p) => entrySeq(p.entryId)),
      points.map((p) => p.value),
      points.map((p) => numericValue(p.value)),
    ],
  );
  return Number(rows[0]?.inserted ?? 0);
}
