import { Router, type Request } from 'express';
import { AppError } from '../../common/errors';
import { malformedPathParam, notFoundHandler, percentDecodes } from '../http/error-handler';
import { createRateLimiter } from '../http/rate-limit';
import type { RouteDeps } from '../routes/route-deps';
import { requireApiKey } from './api-key-auth';
import { jsonBody } from '../http/json-body';
import { externalDeviceRoutes } from './rest-devices';
import { externalNotifyRoutes } from './rest-notify';
import { externalPinRoutes } from './rest-pins';

/**
 * Every path with parameters here is /devices/{deviceId}/…: a device id that does not
 * percent-decode names no device (SPEC §7 DEVICE_NOT_FOUND); otherwise the pin did not decode
 * (INVALID_PIN).
 */
function undecodableParam(req: Request): AppError {
  const deviceId = req.path.split('/')[2] ?? '';
  return percentDecodes(deviceId)
    ? new AppError('INVALID_PIN', 'The pin is not valid percent-encoded UTF-8')
    : new AppError('DEVICE_NOT_FOUND');
}

/**
 * The external REST interface, mounted at /external/api/v1 (SPEC §4.6): API key, plan and rate
 * limit first, then the body, then the endpoints; any other path is 404 NOT_FOUND after auth.
 */
export function externalRestRoutes(deps: Pick<RouteDeps, 'config' | 'stores' | 'logger' | 'ingest' | 'notify'>): Router {
  const router = Router();
  router.use(requireApiKey(deps, createRateLimiter(deps.stores.rateLimits, deps.config.RATE_LIMIT_MULTIPLIER)));
  router.use(jsonBody);
  router.use(externalDeviceRoutes(deps));
  router.use(externalPinRoutes(deps));
  router.use(externalNotifyRoutes(deps));
  router.use(notFoundHandler);
  router.use(malformedPathParam(undecodableParam));
  return router;
}
