import { z } from 'zod';

/**
 * A pin's latest value as the ingest script stores it in `device:{id}:pins` (store-point-13.lua):
 * JSON `{value, updatedAt, origin, reportedAt}`. Entries written before origins were kept have
 * neither `origin` nor `reportedAt`.
 */
export interface LatestValue {
  value: string;
  updatedAt: string;
  /** Who wrote it: the device, an app writing toward the device, or an import of a past reading. */
  origin?: 'device' | 'app' | 'import';
  /** When the device itself last reported this pin (apps' writes do not count as its data). */
  reportedAt?: string;
}

const latestValue = z.object({
  value: z.string(),
  updatedAt: z.string(),
  origin: z.enum(['device', 'app', 'import']).optional(),
  reportedAt: z.string().optional(),
});

/** When the device last reported this pin: `reportedAt`, or for an entry from before origins were kept, its time. */
export function deviceReportedAt(latest: LatestValue): string | null {
  return latest.reportedAt ?? (latest.origin === undefined ? latest.updatedAt : null);
}

/** Reads a stored latest value; null for a missing or malformed entry. */
export function parseLatestValue(json: string | null | undefined): LatestValue | null {
  if (!json) return null;
  try {
    const parsed = latestValue.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
