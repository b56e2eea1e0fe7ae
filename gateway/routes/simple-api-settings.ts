import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { userIdOf } from '../http/auth-context';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { deviceAccess } from '../access/project-access';
import type { RouteDeps } from './route-deps';

export const putBody = z.object({ enabled: z.boolean() });

/** A device's simple-interface switch and its readable `iot_` token (DESIGN §2); editors only. */
export function simpleApiSettingRoutes({ stores }: Pick<RouteDeps, 'stores'>): Router {
  const router = Router();
  const base = '/devices/:deviceId/simple-api';

  router.get(base, async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    sendData(res, { enabled: device.simpleApiEnabled, token: await stores.devices.simpleToken(device.id) });
  });

  router.put(base, async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    const { enabled } = parseInput(putBody, req.body, 'body');
    const token = (await stores.devices.simpleToken(device.id)) ?? (enabled ? await stores.devices.issueSimpleToken(device.id) : null);
    await stores.devices.setSimpleApiEnabled(device.id, enabled);
    sendData(res, { enabled, token });
  });

  router.post(`${base}/regenerate-token`, async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    const token = await stores.devices.issueSimpleToken(device.id);
    if (!token) throw new AppError('DEVICE_NOT_FOUND');
    sendData(res, { token });
  });

  return router;
}
