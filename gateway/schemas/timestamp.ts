import { z } from 'zod';

/** How far past the server's clock a client's timestamp may be: clock skew, never a reading from the future (docs/api.md). */
export const MAX_FUTURE_MS = 24 * 3600 * 1000;

/**
 * A reading's time as a client sends it (ISO 8601 with offset), at most MAX_FUTURE_MS ahead of
 * now. Every path that takes one uses this: a reading dated years ahead would stay its pin's
 * latest value for good and never age out of retention.
 */
export const clientTimestamp = z.iso
  .datetime({ offset: true })
  .refine((v) => Date.parse(v) <= Date.now() + MAX_FUTURE_MS, 'must not be more than 24 hours in the future');
