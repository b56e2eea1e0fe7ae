import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { parsePin, valueFits } from '../../common/pins';
import { userIdOf } from '../http/auth-context';
import { batchInterrupted, type EntryOutcome } from '../http/batch-entries';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { dataPinParams } from '../schemas/data-pin';
import { deviceAccess } from '../access/project-access';
import { pinValueText } from '../schemas/pin-value';
import { clientTimestamp } from '../schemas/timestamp';
import type { IngestResult } from '../ingest/ingest';
import type { RouteDeps } from './route-deps';

export const pointBody = z.object({ value: pinValueText, timestamp: clientTimestamp.optional() });
export const bulkBody = z.object({
  readings: z
    .array(z.object({ pin: z.number().int().min(0).max(255), value: pinValueText, timestamp: clientTimestamp.optional() }))
    .min(1)
    .max(1000),
});

function fits(pin: number, value: string): boolean {
  const parsed = parsePin(pin);
  return parsed !== null && valueFits(parsed, value);
}

/**
 * Writes of the management data API (SPEC §4.3): the same ingest pipeline as MQTT. A write with
 * a `timestamp` imports a past reading (stored and fanned out; neither sent to the device nor
 * judged by threshold rules); without one it is a write toward the device. A dependency failing
 * in the middle of a bulk write answers 503 saying which readings were stored (batchInterrupted).
 */
export function dataWriteRoutes({ stores, ingest }: Pick<RouteDeps, 'stores' | 'ingest'>): Router {
  const router = Router();

  router.post('/data/:deviceId/bulk', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    const { readings } = parseInput(bulkBody, req.body, 'body');
    const tooLarge = readings.flatMap((r, i) => (fits(r.pin, r.value) ? [] : [i]));
    if (tooLarge.length > 0) {
      throw new AppError(
        'VALUE_TOO_LARGE',
        'A value exceeds the byte limit of its pin type; nothing was written',
        tooLarge.map((i) => ({ field: `body.readings.${i}.value`, problem: 'too large for the pin type' })),
      );
    }
    // Timestamped readings are imports: all stored in one atomic step first (fast enough for
    // history backfills); the others are writes toward the device, one after the other in order.
    // A dependency failing midway answers 503 saying which readings were stored.
    const field = 'body.readings';
    const outcomes: EntryOutcome[] = readings.map((r) => (r.timestamp ? 'unknown' : 'not stored'));
    const imports = readings.flatMap((r) => (r.timestamp ? [{ pin: r.pin, value: r.value, at: new Date(r.timestamp) }] : []));
    let imported: Awaited<ReturnType<typeof ingest.importReadings>>;
    try {
      imported = imports.length > 0 ? await ingest.importReadings(device.id, imports) : { ok: true as const, results: [] };
    } catch (err) {
      throw batchInterrupted(err, field, outcomes);
    }
    if (!imported.ok) throw new AppError('DEVICE_NOT_FOUND');
    const importResults = imported.results.values();
    const settled = readings.map((r, i) => {
      if (!r.timestamp) return null;
      const result = importResults.next().value as IngestResult;
      outcomes[i] = result.ok ? 'stored' : 'not stored';
      return result;
    });
    const results = [];
    for (const [i, reading] of readings.entries()) {
      let result = settled[i];
      if (!result) {
        outcomes[i] = 'unknown';
        try {
          result = await ingest({ deviceId: device.id, pin: reading.pin, value: reading.value, origin: 'app' });
        } catch (err) {
          throw batchInterrupted(err, field, outcomes);
        }
        outcomes[i] = result.ok ? 'stored' : 'not stored';
      }
      if (!result.ok && result.code === 'DEVICE_NOT_FOUND') throw new AppError('DEVICE_NOT_FOUND');
      results.push(
        result.ok
          ? { pin: reading.pin, stored: true, delivered: result.delivered, timestamp: result.updatedAt, commandId: result.commandId }
          : { pin: reading.pin, stored: false, delivered: false, error: result.code },
      );
    }
    sendData(res, { written: results.filter((r) => r.stored).length, results });
  });

  router.post('/data/:deviceId/:pin', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    const {
      pin: { name, shown: pin },
    } = parseInput(dataPinParams, { pin: req.params.pin }, 'params');
    const body = parseInput(pointBody, req.body, 'body');
    const at = body.timestamp ? new Date(body.timestamp) : undefined;
    const result = await ingest({ deviceId: device.id, pin: name, value: body.value, origin: at ? 'import' : 'app', at });
    if (!result.ok) throw new AppError(result.code);
    const receipt = { commandId: result.commandId };
    sendData(
      res,
      { deviceId: device.id, pin, value: result.value, timestamp: result.updatedAt, delivered: result.delivered, ...receipt },
      201,
    );
  });

  return router;
}
