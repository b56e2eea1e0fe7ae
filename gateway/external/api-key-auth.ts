import type { Request, RequestHandler } from 'express';
import { AppError } from '../../common/errors';
import { API_KEY_PREFIX } from '../../store/api-keys';
import type { RateLimiter } from '../http/rate-limit';
import type { RouteDeps } from '../routes/route-deps';

const keyOwners = new WeakMap<Request, string>();

/**
 * External REST authentication (SPEC §5): 401 MISSING_API_KEY without the `X-API-Key` header,
 * 401 INVALID_API_KEY for an unknown, revoked or expired key, 403 PLAN_FEATURE_UNAVAILABLE when
 * the key owner's plan has no access, then the owner's rate limit (429). The key's lastUsedAt is
 * refreshed at most once a minute.
 */
export function requireApiKey({ stores, logger }: Pick<RouteDeps, 'stores' | 'logger'>, limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    limiter.markNoAccess(res);
    const secret = req.get('x-api-key');
    if (!secret) throw new AppError('MISSING_API_KEY');
    const apiKey = secret.startsWith(API_KEY_PREFIX) ? await stores.apiKeys.resolve(secret) : null;
    const owner = apiKey ? await stores.users.get(apiKey.userId) : null;
    if (!apiKey || !owner) throw new AppError('INVALID_API_KEY');
    await limiter.consume(res, owner.id, limiter.limitsOf(owner.plan));
    stores.apiKeys.touch(apiKey, new Date()).catch((err: unknown) => logger.warn({ err, keyId: apiKey.id }, 'lastUsedAt not recorded'));
    keyOwners.set(req, owner.id);
    next();
  };
}

/** The user whose API key authenticated this request. */
export function keyOwnerOf(req: Request): string {
  const userId = keyOwners.get(req);
  if (!userId) throw new AppError('MISSING_API_KEY');
  return userId;
}
