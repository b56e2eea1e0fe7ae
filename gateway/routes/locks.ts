import { Router } from 'express';
import { AppError } from '../../common/errors';
import { parsePin } from '../../common/pins';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { deviceAccess } from '../access/project-access';
import type { RouteDeps } from './route-deps';

function pinName(raw: string): string {
  const pin = parsePin(raw);
  if (!pin) throw new AppError('INVALID_PIN', `Not a pin: ${raw}`);
  return pin.name;
}

/** Pin locks (DESIGN §5): held by the device's twin, mirrored in Redis for the hot path. */
export function lockRoutes({ stores, twins }: Pick<RouteDeps, 'stores' | 'twins'>): Router {
  const router = Router();

  router.get('/devices/:deviceId/locks', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'viewer');
    sendData(res, { locks: await stores.devices.locks(device.id) });
  });

  router.put('/devices/:deviceId/pins/:pin/lock', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    sendData(res, await twins.lock(device.id, device.projectId, pinName(req.params.pin), null));
  });

  router.delete('/devices/:deviceId/pins/:pin/lock', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'editor');
    await twins.unlock(device.id, device.projectId, pinName(req.params.pin));
    sendNoContent(res);
  });

  return router;
}
