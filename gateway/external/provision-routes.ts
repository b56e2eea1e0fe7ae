import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { jsonBody } from '../http/json-body';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { provisionDevice } from '../devices/provision-device';
import { deviceName, deviceSerial } from '../schemas/device-fields';
import type { RouteDeps } from '../routes/route-deps';

export const provisionBody = z.strictObject({
  key: z.string().min(1).max(200),
  serial: deviceSerial,
  name: deviceName.optional(),
});

/**
 * `POST /external/api/provision` (DESIGN §14, docs/provisioning.md): a device's first boot with its
 * template's provisioning key, no other credential. Throttled per client address: only refused keys
 * are counted, and a full window refuses before the key is checked (store/provision-throttle.ts). The answer is the
 * management envelope (`data`), 201 `{deviceId, token, topicRoot}`. Neither key nor token is logged.
 */
export function provisionRoutes(deps: Pick<RouteDeps, 'config' | 'stores' | 'broker' | 'carryOutNow' | 'logger'>): Router {
  const { config, stores } = deps;
  const limits = { perAddress: config.PROVISION_MAX_FAILURES_PER_ADDRESS, windowS: config.PROVISION_FAILURE_WINDOW_S };
  const router = Router();

  // Its own body parser: the simple interface's requests pass this router unread.
  router.use('/provision', jsonBody);
  router.post('/provision', async (req, res) => {
    const body = parseInput(provisionBody, req.body, 'body');
    const address = req.ip ?? 'unknown';
    const admitted = await stores.provisionThrottle.admit(address, limits);
    if (!admitted.allowed) {
      res.setHeader('Retry-After', String(admitted.retryAfterS));
      throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many refused provisioning keys from this address; try again later');
    }
    const templateId = await stores.provisioning.templateOf(body.key);
    if (!templateId) {
      await stores.provisionThrottle.refused(address, limits);
      throw new AppError('INVALID_PROVISIONING_KEY');
    }
    sendData(res, await provisionDevice(deps, templateId, body), 201);
  });

  return router;
}
