import { Router } from 'express';
import { z } from 'zod';
import { sendData, sendList } from '../http/respond';
import { parseInput } from '../http/validate';
import { deviceAccess } from '../access/project-access';
import type { RouteDeps } from '../routes/route-deps';
import { keyOwnerOf } from './api-key-auth';
import { externalDeviceView, externalStatusView } from './views';

export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  online: z.enum(['true', 'false']).optional(),
});

/** External REST devices (SPEC §4.6): the devices of every project the key's owner belongs to. */
export function externalDeviceRoutes({ stores }: Pick<RouteDeps, 'stores'>): Router {
  const router = Router();

  router.get('/devices', async (req, res) => {
    const { limit, offset, online } = parseInput(listQuery, req.query, 'query');
    const projectIds = await stores.projects.projectIdsOf(keyOwnerOf(req));
    const status = online === undefined ? undefined : online === 'true' ? 'online' : 'offline';
    const { devices, total } = await stores.devices.list(projectIds, { status, limit, offset });
    sendList(res, devices.map(externalDeviceView), { total, limit, offset });
  });

  router.get('/devices/:deviceId', async (req, res) => {
    const { device } = await deviceAccess(stores, keyOwnerOf(req), req.params.deviceId, 'viewer');
    sendData(res, externalDeviceView(device));
  });

  router.get('/devices/:deviceId/status', async (req, res) => {
    const { device } = await deviceAccess(stores, keyOwnerOf(req), req.params.deviceId, 'viewer');
    sendData(res, externalStatusView(device));
  });

  return router;
}
