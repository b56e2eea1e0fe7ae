import { persistPoints, type StreamPoint } from '../../store/pg/persist-points';
import type { Pool } from '../../store/pg/pool';

export const DAY_MS = 86_400_000;

export interface SeriesPoint {
  ms: number;
  value: string;
}

/** `count` points `stepMs` apart ending at `endMs`: a daily sine plus a small sawtooth. */
export function series(endMs: number, count: number, stepMs: number): SeriesPoint[] {
  return Array.from({ length: count }, (_, i) => {
    const ms = endMs - (count - 1 - i) * stepMs;
    return { ms, value: (20 + 5 * Math.sin((2 * Math.PI * (ms % DAY_MS)) / DAY_MS) + (i % 7) * 0.1).toFixed(2) };
  });
}

/**
 * Writes points straight into PostgreSQL with the persister's own batch write (points and
 * rollups, exactly as the history stream would bring them), `chunk` points per transaction.
 * Entry ids are made up from the point times, unique per point.
 */
export async function writeDirect(
  pool: Pool,
  deviceId: string,
  pin: string,
  points: readonly SeriesPoint[],
  chunk = 10_000,
): Promise<void> {
  for (let start = 0; start < points.length; start += chunk) {
    const batch = points
      .slice(start, start + chunk)
      .map((p, i): StreamPoint => ({ entryId: `${p.ms}-${start + i}`, deviceId, pin, ms: p.ms, value: p.value }));
    await persistPoints(pool, batch);
  }
}
