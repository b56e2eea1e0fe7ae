import { Router } from 'express';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { deviceAccess } from '../access/project-access';
import type { RouteDeps } from '../routes/route-deps';
import { keyOwnerOf } from './api-key-auth';
import { notifyBody, notifyForDevice } from './notify';

/** External REST notify (SPEC §4.6): a notification in the device's project; editor role. */
export function externalNotifyRoutes({ stores, notify }: Pick<RouteDeps, 'stores' | 'notify'>): Router {
  const router = Router();

  router.post('/devices/:deviceId/notify', async (req, res) => {
    const { device } = await deviceAccess(stores, keyOwnerOf(req), req.params.deviceId, 'editor');
    const body = parseInput(notifyBody, req.body, 'body');
    sendData(res, { notificationId: await notifyForDevice(notify, device, body) });
  });

  return router;
}
