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

/** What PostgreSQL text cannot hold: NUL, and a UTF-16 surrogate without its pair (a bulk entry's JSON keeps one as `\uD800`). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what PostgreSQL text cannot hold
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A value as PostgreSQL can store it: each character it cannot hold becomes U+FFFD (else the batch
 * could never be written, and the stream behind it would stop). The doors refuse a lone surrogate
 * (docs/limits.md "Pin values"); this stays so that one reaching the stream anyway stops nothing.
 */
const storable = (value: string): string => value.replace(UNSTORABLE, '\uFFFD');

/** A point as one row of persistRows' statement: its JSON object, made only by pointRow. */
export type PointRow = string & { readonly pointRow: unique symbol };

/**
 * A point's row, made as soon as it is read: a batch waiting for PostgreSQL (up to two per shard,
 * for as long as a statement takes) then holds one flat string per point instead of the point,
 * its stream entry and the reply they came in, so far less of it outlives V8's young generation
 * (at 10,000 values/s the batches were half of what the gateway promoted to its old generation,
 * docs/benchmarks.md).
 */
export function pointRow(p: StreamPoint): PointRow {
  return JSON.stringify({
    entry: p.entryId,
    device_id: p.deviceId,
    pin: p.pin,
    ms: p.ms,
    value: storable(p.value),
    num: numericValue(p.value),
  }) as PointRow;
}

/**
 * Inserts a batch of points (their rows) and adds the numeric ones to their one-minute rollups, in one
 * statement (one transaction). A point's `seq` is its stream entry id `ms-n` as one bigint,
 * ms × 2^20 + n (computed in SQL): unique per stream, as Redis ids only grow; 2^20 entries within
 * one millisecond is beyond any Redis, and the product stays below 2^63 until the year 2248;
 * rows made by hand take the bigserial default, counting up from 1. Exactly once: a point already
 * stored (a batch retried after a crash between COMMIT and XACK, or taken over from a dead node)
 * conflicts on its primary key and is skipped, and only the rows actually inserted feed the
 * rollups. Returns how many were new.
 */
export async function persistRows(pool: Pool, rows: readonly PointRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await pool.query<{ inserted: string }>(
    `WITH input AS (
       SELECT device_id, pin, ms, value, num,
              (split_part(entry, '-', 1)::bigint << 20) + split_part(entry, '-', 2)::bigint AS seq
       FROM json_to_recordset($1::json) AS t(entry text, device_id uuid, pin text, ms bigint, value text, num float8)
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
    // One JSON parameter: node-postgres's array encoding costs more than JSON.stringify.
    [`[${rows.join(',')}]`],
  );
  return Number(result.rows[0]?.inserted ?? 0);
}

/** persistRows for points at hand. */
export const persistPoints = (pool: Pool, points: readonly StreamPoint[]): Promise<number> => persistRows(pool, points.map(pointRow));
