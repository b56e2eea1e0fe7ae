import type { Pool } from './pool';
import type { TextPoint } from './history-reads';
import { inTransaction } from './transaction';

const MINUTE_MS = 60_000;

/**
 * Deletes a pin's points in [from, to] (either open) and fixes its rollups in the same
 * transaction: the rollup rows of minutes wholly inside the range go; a minute the range cuts
 * (at most one at each end) is recomputed from the points it has left. Returns how many went.
 */
export async function deletePointRange(pool: Pool, deviceId: string, pin: string, from: Date | null, to: Date | null): Promise<number> {
  const fromMs = from?.getTime() ?? null;
  const toMs = to?.getTime() ?? null;
  // Minutes wholly inside, [lo, hi); and the cut minutes at the ends, to recompute.
  const lo = fromMs === null ? null : Math.ceil(fromMs / MINUTE_MS) * MINUTE_MS;
  const hi = toMs === null ? null : Math.floor((toMs + 1) / MINUTE_MS) * MINUTE_MS;
  const cut = new Set<number>();
  if (fromMs !== null && fromMs % MINUTE_MS !== 0) cut.add(fromMs - (fromMs % MINUTE_MS));
  if (toMs !== null && (toMs + 1) % MINUTE_MS !== 0) cut.add(toMs - (toMs % MINUTE_MS));
  return inTransaction(pool, async (client) => {
    const { rowCount } = await client.query('DELETE FROM points WHERE device_id = $1 AND pin = $2 AND ts >= $3 AND ts <= $4', [
      deviceId,
      pin,
      from ?? '-infinity',
      to ?? 'infinity',
    ]);
    await client.query('DELETE FROM rollup_1m WHERE device_id = $1 AND pin = $2 AND minute >= $3 AND minute < $4', [
      deviceId,
      pin,
      lo === null ? '-infinity' : new Date(lo),
      hi === null ? 'infinity' : new Date(hi),
    ]);
    for (const minute of [...cut].sort((a, b) => a - b)) {
      const at = new Date(minute);
      await client.query('DELETE FROM rollup_1m WHERE device_id = $1 AND pin = $2 AND minute = $3', [deviceId, pin, at]);
      await client.query(
        `INSERT INTO rollup_1m (device_id, pin, minute, count, sum, min, max)
         SELECT $1, $2, $3, count(*), sum(num), min(num), max(num) FROM points
         WHERE device_id = $1 AND pin = $2 AND ts >= $3 AND ts < $4 AND num IS NOT NULL
         HAVING count(*) > 0`,
        [deviceId, pin, at, new Date(minute + MINUTE_MS)],
      );
    }
    return rowCount ?? 0;
  });
}

/** Every point and rollup of the given devices (device or project delete). */
export async function deleteDeviceHistory(pool: Pool, deviceIds: readonly string[]): Promise<void> {
  if (deviceIds.length === 0) return;
  await inTransaction(pool, async (client) => {
    await client.query('DELETE FROM points WHERE device_id = ANY($1::uuid[])', [deviceIds]);
    await client.query('DELETE FROM rollup_1m WHERE device_id = ANY($1::uuid[])', [deviceIds]);
  });
}

/** The newest point left of a pin, or null (what the latest value falls back to after a delete). */
export async function newestPoint(pool: Pool, deviceId: string, pin: string): Promise<TextPoint | null> {
  const { rows } = await pool.query<TextPoint>(
    `SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp, value FROM points
     WHERE device_id = $1 AND pin = $2 ORDER BY ts DESC, seq DESC LIMIT 1`,
    [deviceId, pin],
  );
  return rows[0] ?? null;
}
