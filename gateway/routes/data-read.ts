import { once } from 'node:events';
import { Router, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { AGGREGATES, INTERVALS, type Interval, type Point } from '../../store/pin-series';
import { userIdOf } from '../http/auth-context';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { dataPinParams } from '../schemas/data-pin';
import { deviceAccess } from '../access/project-access';
import type { RouteDeps } from './route-deps';

const HOUR_MS = 3_600_000;
const timestamp = z.iso.datetime({ offset: true }).transform((v) => new Date(v));

export const readQuery = z
  .object({
    from: timestamp.optional(),
    to: timestamp.optional(),
    limit: z.coerce.number().int().min(1).max(100_000).default(1000),
    aggregate: z.enum(['raw', ...AGGREGATES]).default('raw'),
    interval: z.enum(Object.keys(INTERVALS) as [Interval, ...Interval[]]).optional(),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .superRefine((q, ctx) => {
    if (q.aggregate !== 'raw' && !q.interval) {
      ctx.addIssue({ code: 'custom', path: ['interval'], message: 'required when aggregate is not raw' });
    }
    if (q.from && q.to && q.from > q.to) ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
  });

export const deleteQuery = z
  .object({ from: timestamp.optional(), to: timestamp.optional() })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { path: ['from'], message: 'must not be after to' });

const csvLines = (points: readonly Point[]): string => points.map((p) => `${p.timestamp},${p.value}\n`).join('');

function sendCsv(res: Response, points: Point[]): void {
  res
    .status(200)
    .type('text/csv')
    .send(`timestamp,value\n${csvLines(points)}`);
}

/**
 * Streams CSV page by page as the database returns them, honouring backpressure. The first page
 * is read before the status is sent, so a dependency that is down is still a 503; a failure after
 * that can only cut the response short.
 */
async function streamCsv(res: Response, pages: AsyncGenerator<Point[]>): Promise<void> {
  const first = await pages.next();
  res.status(200).type('text/csv');
  res.write(`timestamp,value\n${first.done ? '' : csvLines(first.value)}`);
  try {
    for await (const page of pages) {
      if (!res.write(csvLines(page))) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (res.destroyed) return;
    }
  } catch (err) {
    res.destroy(err instanceof Error ? err : undefined);
    throw err;
  }
  res.end();
}

/** Reads and deletes of stored pin data (SPEC §4.3). A pin is a bare number 0–255 meaning a V pin, or a pin name (gateway/schemas/data-pin.ts). */
export function dataReadRoutes({ stores }: Pick<RouteDeps, 'stores'>): Router {
  const router = Router();

  router.get('/data/:deviceId/:pin/latest', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'viewer');
    const {
      pin: { name },
    } = parseInput(dataPinParams, { pin: req.params.pin }, 'params');
    const latest = await stores.pinSeries.latest(device.id, name);
    if (!latest) throw new AppError('PIN_NOT_FOUND');
    sendData(res, latest);
  });

  router.get('/data/:deviceId/:pin', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'viewer');
    const {
      pin: { name, shown: pin },
    } = parseInput(dataPinParams, { pin: req.params.pin }, 'params');
    const query = parseInput(readQuery, req.query, 'query');
    const to = query.to ?? new Date();
    const from = query.from ?? new Date(to.getTime() - HOUR_MS);
    if (query.format === 'csv' && query.aggregate === 'raw') {
      return streamCsv(res, stores.pinSeries.rawPages(device.id, name, from, to, query.limit));
    }
    const points =
      query.aggregate === 'raw'
        ? await stores.pinSeries.raw(device.id, name, from, to, query.limit)
        : await stores.pinSeries.aggregate(device.id, name, { from, to }, query.aggregate, query.interval as Interval, query.limit);
    if (query.format === 'csv') return sendCsv(res, points);
    sendData(res, { pin, deviceId: device.id, points });
  });

  router.delete('/data/:deviceId/:pin', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    const {
      pin: { name, shown: pin },
    } = parseInput(dataPinParams, { pin: req.params.pin }, 'params');
    const query = parseInput(deleteQuery, req.query, 'query');
    const deleted = await stores.pinSeries.deleteRange(device.id, name, query.from ?? null, query.to ?? null);
    sendData(res, { deviceId: device.id, pin, deleted });
  });

  return router;
}
