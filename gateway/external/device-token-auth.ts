import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../../common/errors';
import { hashSecret } from '../../common/credentials';
import { SIMPLE_TOKEN_PREFIX, type SimpleTokenHolder } from '../../store/devices';
import type { RateLimiter } from '../http/rate-limit';
import type { RouteDeps } from '../routes/route-deps';
import { createTokenOwnerLookup, type TokenOwner, type TokenPath } from './token-owner';

const tokenDevices = new WeakMap<Request, SimpleTokenHolder>();

/**
 * Simple interface authentication (SPEC §4.7, §5): 401 MISSING_TOKEN without `?token=`,
 * 401 INVALID_TOKEN when no device has it, 403 PLAN_FEATURE_UNAVAILABLE when the owner of the
 * device's project has no access, 403 SIMPLE_API_DISABLED when the device has the interface off
 * (not counted), then the owner's rate limit (429).
 *
 * A token this node let in before is counted in the same round trip as its reads (the owner and
 * plan it led to last time): when the reads confirm that path and the interface is on, the count
 * stands; when they do not, the count is taken back before the request is refused, or counted
 * again for the owner it leads to now (docs/architecture.md, "Simple token lookup").
 */
export function requireDeviceToken(deps: Pick<RouteDeps, 'stores'>, limiter: RateLimiter): RequestHandler {
  const owners = createTokenOwnerLookup(deps);

  /** The checks in order for what the token leads to, then the count; remembers the path of a token let in. */
  async function admit(res: Response, hash: string, found: TokenOwner | null): Promise<SimpleTokenHolder> {
    if (!found) throw new AppError('INVALID_TOKEN');
    const { device, owner } = found;
    const limits = limiter.limitsOf(owner.plan);
    if (!device.simpleApiEnabled) {
      await limiter.report(res, owner.id, limits);
      throw new AppError('SIMPLE_API_DISABLED');
    }
    owners.remember(hash, found);
    await limiter.consume(res, owner.id, limits);
    return device;
  }

  /** A remembered token: its reads and its count in one round trip. */
  async function admitAlongPath(res: Response, hash: string, path: TokenPath): Promise<SimpleTokenHolder> {
    const limits = limiter.limitsOf(path.plan);
    const now = new Date();
    const [read, counted] = await Promise.allSettled([owners.read(hash), limiter.count(path.ownerId, limits, now)]);
    const found = read.status === 'fulfilled' ? read.value : null;
    const same = found !== null && found.owner.id === path.ownerId && found.owner.plan === path.plan && found.device.simpleApiEnabled;
    if (counted.status === 'fulfilled' && same) {
      limiter.settle(res, limits, counted.value);
      return found.device;
    }
    if (counted.status === 'fulfilled' && counted.value.allowed) await limiter.takeBack(path.ownerId, now);
    if (read.status === 'rejected') throw read.reason;
    if (counted.status === 'rejected') throw counted.reason;
    owners.forget(hash);
    return admit(res, hash, found);
  }

  return async (req, res, next) => {
    limiter.markNoAccess(res);
    const token = req.query.token;
    if (token === undefined || token === '') throw new AppError('MISSING_TOKEN');
    if (typeof token !== 'string' || !token.startsWith(SIMPLE_TOKEN_PREFIX)) throw new AppError('INVALID_TOKEN');
    const hash = hashSecret(token);
    const path = owners.remembered(hash);
    tokenDevices.set(req, path ? await admitAlongPath(res, hash, path) : await admit(res, hash, await owners.read(hash)));
    next();
  };
}

/** The device whose token authenticated this request (what admission read of it: a route that shows more reads it). */
export function tokenDeviceOf(req: Request): SimpleTokenHolder {
  const device = tokenDevices.get(req);
  if (!device) throw new AppError('MISSING_TOKEN');
  return device;
}
