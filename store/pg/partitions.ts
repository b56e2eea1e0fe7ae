import type { Pool } from './pool';

/** How many days of daily partitions exist ahead of today. */
export const PARTITION_DAYS_AHEAD = 7;

/**
 * Creates the daily `points` partitions from `retentionDays` ago to PARTITION_DAYS_AHEAD days
 * ahead (UTC); existing ones are kept. Called at start and once a day. Returns how many it made.
 */
export async function ensurePointPartitions(pool: Pool, retentionDays: number, now: Date = new Date()): Promise<number> {
  const back = Math.ceil(retentionDays);
  const { rows } = await pool.query<{ created: number }>(
    `SELECT create_points_partitions(($1::timestamptz AT TIME ZONE 'UTC')::date - $2::integer, $3::integer) AS created`,
    [now.toISOString(), back, back + PARTITION_DAYS_AHEAD + 1],
  );
  return rows[0]?.created ?? 0;
}

/** Retention: drops whole daily partitions older than `retentionDays`; returns their names. */
export async function dropExpiredPartitions(pool: Pool, retentionDays: number, now: Date = new Date()): Promise<string[]> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  const { rows } = await pool.query<{ dropped: string }>('SELECT drop_points_partitions_before($1) AS dropped', [cutoff.toISOString()]);
  return rows.map((row) => row.dropped);
}
