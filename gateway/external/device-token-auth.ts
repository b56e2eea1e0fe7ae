import type { Request, RequestHandler } from 'express';
import { AppError } from '../../common/errors';
import { SIMPLE_TOKEN_PREFIX, type DeviceWithState } from '../../store/devices';
import type { RateLimiter } from '../http/rate-limit';
import type { RouteDeps } from '../route-deps';
import { createTokenOwnerLookup } from './token-owner';

const tokenDevices = new WeakMap<Request, DeviceWithState>();

/**
 * Simple interface authentication (SPEC §4.7, §5): 401 MISSING_TOKEN without `?token=`,
 * 401 INVALID_TOKEN when no device has it, 403 PLAN_FEATURE_UNAVAILABLE when the owner of the
 * device's project has no access, 403 SIMPLE_API_DISABLED when the device has the interface off
 * (not counted), then the owner's rate limit (429).
 */
export function requireDeviceToken(deps: Pick<RouteDeps, 'stores'>, limiter: RateLimiter): RequestHandler {
  const ownerOf = createTokenOwnerLookup(deps);
  return async (req, res, next) => {
    limiter.markNoAccess(res);
    const token = req.query.token;
    if (token === undefined || token === '') throw new AppError('MISSING_TOKEN');
    const found = typeof token === 'string' && token.startsWith(SIMPLE_TOKEN_PREFIX) ? await ownerOf(token) : null;
    if (!found) throw new AppError('INVALID_TOKEN');
    const { device, owner } = found;
    const limits = limiter.limitsOf(owner.plan);
    if (!device.simpleApiEnabled) {
      await limiter.report(res, owner.id, limits);
      throw new AppError('SIMPLE_API_DISABLED');
    }
    await limiter.consume(res, owner.id, limits);
    tokenDevices.set(req, device);
    next();
  };
}

/** The device whose token authenticated this request. */
export function tokenDeviceOf(req: Request): DeviceWithState {
  const device = tokenDevices.get(req);
  if (!device) throw new AppError('MISSING_TOKEN');
  return device;
}
