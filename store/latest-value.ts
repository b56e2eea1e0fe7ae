import { z } from 'zod';

/** A pin's latest value as the ingest script stores it in `device:{id}:pins`: JSON `{value, updatedAt}`. */
export interface LatestValue {
  value: string;
  updatedAt: string;
}

const latestValue = z.object({ value: z.string(), updatedAt: z.string() });

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
