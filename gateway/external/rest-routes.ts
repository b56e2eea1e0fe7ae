import { Router } from 'express';
import { notFoundHandler } from '../http/error-handler';
import { createRateLimiter } from '../http/rate-limit';
import type { RouteDeps } from '../route-deps';
import { requireApiKey } from './api-key-auth';
import { jsonBody } from './json-body';
import { externalDeviceRoutes } from './rest-devices';
import { externalNotifyRoutes } from './rest-notify';
import { externalPinRoutes } from './rest-pins';

/**
 * The external REST interface, mounted at /external/api/v1 (SPEC §4.6): API key, plan and rate
 * limit first, then the body, then the endpoints; any other path is 404 NOT_FOUND after auth.
 */
export function externalRestRoutes(deps: RouteDeps): Router {
  const router = Router();
  router.use(requireApiKey(deps, createRateLimiter(deps.stores.rateLimits, deps.config.RATE_LIMIT_MULTIPLIER)));
  router.use(jsonBody);
  router.use(externalDeviceRoutes(deps));
  router.use(externalPinRoutes(deps));
  router.use(externalNotifyRoutes(deps));
  router.use(notFoundHandler);
  return router;
}
