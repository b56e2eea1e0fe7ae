import type { Pool } from './pool';

/**
 * Reads of pin history in PostgreSQL. Every query names device and pin and bounds ts, so it walks
 * the primary key (device_id, pin, ts, seq) of only the daily partitions the window touches.
 * Times come back as ISO text made by the database (`ISO_TS`), so no row is parsed into a Date.
 */
const ISO_TS = `to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const MINUTE_MS = 60_000;

export interface NumericPoint {
  timestamp: string;
  value: number;
}

export interface TextPoint {
  timestamp: string;
  value: string;
}

/** A point's place in (ts, seq) order: where the next page starts after. */
interface Cursor {
  ts: string;
  seq: string;
}

/** The newest `limit` numeric points in [from, to], oldest first. */
export async function rawPoints(pool: Pool, deviceId: string, pin: string, from: Date, to: Date, limit: number): Promise<NumericPoint[]> {
  const { rows } = await pool.query<{ timestamp: string; value: number }>(
    `SELECT ${ISO_TS} AS timestamp, num AS value FROM points
     WHERE device_id = $1 AND pin = $2 AND ts >= $3 AND ts <= $4 AND num IS NOT NULL
     ORDER BY ts DESC, seq DESC LIMIT $5`,
    [deviceId, pin, from, to, limit],
  );
  return rows.reverse();
}

/**
 * The same points as rawPoints, oldest first in pages of `pageSize` (keyset paging on the
 * primary key), for a response that streams them: never the whole result in memory.
 */
export async function* rawPointPages(
  pool: Pool,
  deviceId: string,
  pin: string,
  window: { from: Date; to: Date; limit: number },
  pageSize = 10_000,
): AsyncGenerator<NumericPoint[]> {
  const where = 'device_id = $1 AND pin = $2 AND ts >= $3 AND ts <= $4 AND num IS NOT NULL';
  // The oldest of the newest `limit`: the first page starts there (or at `from` when fewer).
  const cut = await pool.query<Cursor>(
    `SELECT ts::text AS ts, seq::text AS seq FROM points WHERE ${where} ORDER BY ts DESC, seq DESC OFFSET $5 LIMIT 1`,
    [deviceId, pin, window.from, window.to, window.limit - 1],
  );
  const first = cut.rows[0];
  let bound: { op: '>=' | '>'; at: Cursor } | null = first ? { op: '>=', at: first } : null;
  let left = window.limit;
  while (left > 0) {
    const size = Math.min(pageSize, left);
    const { rows } = await pool.query<NumericPoint & Cursor>(
      `SELECT ${ISO_TS} AS timestamp, num AS value, ts::text AS ts, seq::text AS seq FROM points
       WHERE ${where} ${bound ? `AND (ts, seq) ${bound.op} ($6::timestamptz, $7::bigint)` : ''}
       ORDER BY ts, seq LIMIT $5`,
      [deviceId, pin, window.from, window.to, size, ...(bound ? [bound.at.ts, bound.at.seq] : [])],
    );
    if (rows.length > 0) yield rows.map((r) => ({ timestamp: r.timestamp, value: r.value }));
    if (rows.length < size) return;
    left -= rows.length;
    const last = rows[rows.length - 1] as Cursor;
    bound = { op: '>', at: { ts: last.ts, seq: last.seq } };
  }
}

export type AggregateFn = 'avg' | 'min' | 'max' | 'sum';

/**
 * Aggregates per UTC-aligned bucket of `bucketMs` over [from, to], newest `limit` buckets, oldest
 * first, empty buckets left out. Whole minutes inside the window come from rollup_1m; the partial
 * minutes at its two ends from the points themselves, so the answer is exact for any window.
 */
export async function aggregatePoints(
  pool: Pool,
  deviceId: string,
  pin: string,
  window: { from: Date; to: Date },
  fn: AggregateFn,
  bucketMs: number,
  limit: number,
): Promise<NumericPoint[]> {
  const fromMs = window.from.getTime();
  const toMs = window.to.getTime();
  // Whole minutes [lo, hi): a minute m is inside when m >= from and its last ms m + 59,999 <= to.
  let lo = Math.ceil(fromMs / MINUTE_MS) * MINUTE_MS;
  let hi = Math.floor((toMs + 1) / MINUTE_MS) * MINUTE_MS;
  if (lo >= hi) lo = hi = fromMs;
  // avg divides by a float8 sum of counts: sum() of the bigint count is a numeric aggregate, which
  // made avg the slowest of the four (EXPLAIN ANALYZE; docs/benchmarks.md, issue 13). Counts are
  // integers far below 2^53, so the float8 sum is exact.
  const value = { avg: 'sum(sum) / sum(count::float8)', min: 'min(min)', max: 'max(max)', sum: 'sum(sum)' }[fn];
  const { rows } = await pool.query<NumericPoint>(
    `SELECT to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp, value FROM (
       SELECT date_bin($8::bigint * interval '1 millisecond', t, timestamptz 'epoch') AS bucket, (${value})::float8 AS value
       FROM (
         SELECT minute AS t, count, sum, min, max FROM rollup_1m
         WHERE device_id = $1 AND pin = $2 AND minute >= $5 AND minute < $6
         UNION ALL
         SELECT ts, 1, num, num, num FROM points
         WHERE device_id = $1 AND pin = $2 AND num IS NOT NULL AND ts >= $3 AND ts < $5
         UNION ALL
         SELECT ts, 1, num, num, num FROM points
         WHERE device_id = $1 AND pin = $2 AND num IS NOT NULL AND ts >= $6 AND ts <= $4
       ) parts
       GROUP BY 1 ORDER BY 1 DESC LIMIT $7
     ) buckets ORDER BY bucket`,
    [deviceId, pin, window.from, window.to, new Date(lo), new Date(hi), limit, bucketMs],
  );
  return rows;
}

/** The newest `limit` points (any value) between `from` and `to` (either open), oldest first. */
export async function textPoints(
  pool: Pool,
  deviceId: string,
  pin: string,
  window: { from: Date | null; to: Date | null; limit: number },
): Promise<TextPoint[]> {
  const { rows } = await pool.query<TextPoint>(
    `SELECT ${ISO_TS} AS timestamp, value FROM points
     WHERE device_id = $1 AND pin = $2 AND ts >= $3 AND ts <= $4
     ORDER BY ts DESC, seq DESC LIMIT $5`,
    [deviceId, pin, window.from ?? '-infinity', window.to ?? 'infinity', window.limit],
  );
  return rows.reverse();
}
