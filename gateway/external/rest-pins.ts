import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { sendData, sendList } from '../http/respond';
import { parseInput } from '../http/validate';
import { deviceAccess } from '../access/project-access';
import type { RouteDeps } from '../routes/route-deps';
import { keyOwnerOf } from './api-key-auth';
import { batch, parsePinPayload, pinNameOf, pinValue, writeBatch, writePin } from './pin-writes';

const timestamp = z.iso.datetime({ offset: true }).transform((v) => new Date(v));
export const historyQuery = z
  .object({
    from: timestamp.optional(),
    to: timestamp.optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to', path: ['from'] });

/** External REST pins (SPEC §4.6): reads need the viewer role, writes the editor role, through ingest. */
export function externalPinRoutes({ stores, ingest }: Pick<RouteDeps, 'stores' | 'ingest'>): Router {
  const router = Router();

  router.get('/devices/:deviceId/pins', async (req, res) => {
    const { device } = await deviceAccess(stores, keyOwnerOf(req), req.params.deviceId, 'viewer');
    sendData(res, await stores.pins.all(device.id));
  });

  router.get('/devices/:deviceId/pins/:pin', async (req, res) => {
    const { device } = await deviceAccess(stores, keyOwnerOf(req), req.params.deviceId, 'viewer');
    const pin = await stores.pins.one(device.id, pinNameOf(req.params.pin, 'standard'));
    if (!pin) throw new AppError('PIN_NOT_FOUND');
    sendData(res, pin);
  });

  router.put('/devices/:deviceId/pins/:pin', async (req, res) => {
    const { device } = await deviceAccess(stores, keyOwnerOf(req), req.params.deviceId, 'editor');
    const { value, ttlSeconds } = parsePinPayload(pinValue, req.body, 'body');
    sendData(res, await writePin(ingest, device.id, req.params.pin, value, 'standard', ttlSeconds));
  });

  router.patch('/devices/:deviceId/pins', async (req, res) => {
    const { device } = await deviceAccess(stores, keyOwnerOf(req), req.params.deviceId, 'editor');
    const { pins, ttlSeconds } = parsePinPayload(batch, req.body, 'body');
    sendData(res, await writeBatch(ingest, device.id, pins, 'standard', ttlSeconds));
  });

  router.get('/devices/:deviceId/history/:pin', async (req, res) => {
    const { device } = await deviceAccess(stores, keyOwnerOf(req), req.params.deviceId, 'viewer');
    const pin = pinNameOf(req.params.pin, 'standard');
    const query = parseInput(historyQuery, req.query, 'query');
    const points = await stores.pins.history(device.id, pin, { from: query.from ?? null, to: query.to ?? null, limit: query.limit });
    if (!points) throw new AppError('PIN_NOT_FOUND');
    sendList(res, points, { count: points.length, pin });
  });

  return router;
}
