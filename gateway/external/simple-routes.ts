import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { notFoundHandler } from '../http/error-handler';
import { createRateLimiter } from '../http/rate-limit';
import { parseInput } from '../http/validate';
import type { RouteDeps } from '../routes/route-deps';
import { requireDeviceToken, tokenDeviceOf } from './device-token-auth';
import { jsonBody } from '../http/json-body';
import { notifyBody, notifyForDevice } from './notify';
import { batch, parsePinPayload, pinAndValue, pinNameOf, writeBatch, writePin } from './pin-writes';
import { sendFields } from '../http/respond';
import { simpleStatusView } from './views';

export const pinQuery = z.object({ pin: z.string() });

/**
 * The simple interface, mounted at /external/api (SPEC §4.7): the device is the token's; pin names
 * V0–V255, D0–D255, A0–A255 (SPEC §8); writes go through ingest; fields sit beside `success`.
 */
export function simpleRoutes(deps: Pick<RouteDeps, 'config' | 'stores' | 'ingest' | 'notify'>): Router {
  const { stores, ingest, notify } = deps;
  const router = Router();
  router.use(requireDeviceToken(deps, createRateLimiter(stores.rateLimits, deps.config.RATE_LIMIT_MULTIPLIER)));
  router.use(jsonBody);

  router.get('/get', async (req, res) => {
    const device = tokenDeviceOf(req);
    const { pin } = parsePinPayload(pinQuery, req.query, 'query');
    const found = await stores.pins.one(device.id, pinNameOf(pin, 'wide'));
    if (!found) throw new AppError('PIN_NOT_FOUND');
    sendFields(res, { pin: found.pin, value: found.value, updatedAt: found.updatedAt });
  });

  router.get('/update', async (req, res) => {
    const device = tokenDeviceOf(req);
    const { pin, value } = parsePinPayload(pinAndValue, req.query, 'query');
    const written = await writePin(ingest, device.id, pin, value, 'wide');
    sendFields(res, { pin: written.pin, value: written.value, delivered: written.delivered, commandId: written.commandId });
  });

  router.get('/get-all', async (req, res) => {
    const device = tokenDeviceOf(req);
    const pins = await stores.pins.all(device.id);
    sendFields(res, {
      deviceId: device.id,
      pins: Object.fromEntries(pins.map((p) => [p.pin, { value: p.value, label: p.label, updatedAt: p.updatedAt }])),
    });
  });

  router.get('/is-online', async (req, res) => {
    const device = await stores.devices.get(tokenDeviceOf(req).id);
    if (!device) throw new AppError('DEVICE_NOT_FOUND');
    sendFields(res, simpleStatusView(device));
  });

  router.post('/notify', async (req, res) => {
    const device = tokenDeviceOf(req);
    const body = parseInput(notifyBody, req.body, 'body');
    sendFields(res, { notificationId: await notifyForDevice(notify, device, body) });
  });

  router.post('/batch-update', async (req, res) => {
    const device = tokenDeviceOf(req);
    const { pins } = parsePinPayload(batch, req.body, 'body');
    sendFields(res, await writeBatch(ingest, device.id, pins, 'wide'));
  });

  router.use(notFoundHandler);
  return router;
}
