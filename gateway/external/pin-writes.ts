import { z } from 'zod';
import { AppError, isAppError } from '../../common/errors';
import { parsePin } from '../../common/pins';
import { pinValueText } from '../schemas/pin-value';
import type { Ingest } from '../ingest/ingest';
import { writeEntries } from '../http/batch-entries';
import { parseInput } from '../http/validate';

type PinRanges = 'standard' | 'wide';

/** Most entries in one batch write (SPEC §8). */
export const MAX_BATCH = 50;

/** A queued command older than this is never sent (docs/commands.md): up to 30 days. */
export const ttlSeconds = z
  .int()
  .min(1)
  .max(30 * 86_400)
  .optional();
export const pinValue = z.object({ value: pinValueText, ttlSeconds });
export const pinAndValue = z.object({ pin: z.string(), value: pinValueText });
export const batch = z.object({ pins: z.array(pinAndValue).min(1).max(MAX_BATCH), ttlSeconds });

/** Parses a pin write's input; anything malformed is 400 INVALID_PIN ("pin name or payload invalid", SPEC §7). */
export function parsePinPayload<S extends z.ZodType>(schema: S, input: unknown, where: 'body' | 'query'): z.infer<S> {
  try {
    return parseInput(schema, input, where);
  } catch (err) {
    if (isAppError(err) && err.code === 'VALIDATION_ERROR') throw new AppError('INVALID_PIN', err.message, err.details);
    throw err;
  }
}

/** The canonical name of a pin (`v5` → `V5`); 400 INVALID_PIN when it is not one. */
export function pinNameOf(input: string, ranges: PinRanges): string {
  const pin = parsePin(input, ranges);
  if (!pin) throw new AppError('INVALID_PIN', `Not a pin name: ${input}`);
  return pin.name;
}

/** One write toward the device through the ingest pipeline; a refusal is thrown with its code. */
export async function writePin(ingest: Ingest, deviceId: string, pin: string, value: string, ranges: PinRanges, ttl?: number) {
  const result = await ingest({ deviceId, pin, value, origin: 'app', pinRanges: ranges, ...(ttl ? { ttlSeconds: ttl } : {}) });
  if (!result.ok) throw new AppError(result.code);
  return { pin: result.pin, value: result.value, delivered: result.delivered, updatedAt: result.updatedAt, commandId: result.commandId };
}

/**
 * A batch write (SPEC §4.6, §4.7): every pin name is checked first (one bad name refuses the whole
 * batch, nothing written); then each entry goes through ingest in order. A locked pin or an
 * oversized value is skipped and reported with `delivered` false; `updated` counts the entries.
 * A dependency failing midway answers 503 saying which entries were stored (writeEntries).
 */
export async function writeBatch(
  ingest: Ingest,
  deviceId: string,
  entries: z.infer<typeof pinAndValue>[],
  ranges: PinRanges,
  ttl?: number,
) {
  const bad = entries.flatMap((e, i) =>
    parsePin(e.pin, ranges) ? [] : [{ field: `body.pins.${i}.pin`, problem: `not a pin name: ${e.pin}` }],
  );
  if (bad.length > 0) throw new AppError('INVALID_PIN', 'A pin name is invalid; nothing was written', bad);
  const written = await writeEntries(
    entries,
    'body.pins',
    async (entry) => {
      const result = await ingest({
        deviceId,
        pin: entry.pin,
        value: entry.value,
        origin: 'app',
        pinRanges: ranges,
        ...(ttl ? { ttlSeconds: ttl } : {}),
      });
      if (!result.ok && result.code !== 'PIN_LOCKED' && result.code !== 'VALUE_TOO_LARGE') throw new AppError(result.code);
      // Commands (docs/commands.md): each written entry's command id; null for one skipped.
      return {
        pin: pinNameOf(entry.pin, ranges),
        stored: result.ok,
        delivered: result.ok && result.delivered,
        commandId: result.ok ? result.commandId : null,
      };
    },
    (r) => r.stored,
  );
  return { updated: entries.length, results: written.map(({ pin, delivered, commandId }) => ({ pin, delivered, commandId })) };
}
