/**
 * ISO 8601 times as the twin and its activities compare them: parsed, so a null or unparsable
 * time is told apart from a real one. No Node imports: the workflow bundle imports it.
 */
export const isoOf = (ms: number): string => new Date(ms).toISOString();

/** Epoch ms of an ISO time, or null when there is none or it does not parse. */
export const msOf = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};

export const isTime = (v: unknown): v is string => typeof v === 'string' && msOf(v) !== null;

/** The later of two ISO times (a null or unparsable one loses). */
export const later = (a: string | null, b: string | null): string | null => {
  const am = msOf(a);
  const bm = msOf(b);
  if (bm === null) return am === null ? null : a;
  if (am === null) return b;
  return bm > am ? b : a;
};
