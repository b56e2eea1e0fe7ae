import type { RequestHandler } from 'express';
import type { Config } from '../../common/config';
import { AppError } from '../../common/errors';
import { managementPerMinute } from '../../common/management-rate';
import type { Stores } from '../../store';

/**
 * The management API's rate limit (DESIGN §11, docs/limits.md "Management rate limit"): requests
 * per user and minute by the user's plan, counted in Redis (every node shares the counter), after
 * the bearer check; the public paths (register, login, admin) have none of their own user and are
 * not counted here. Over the limit: 429 RATE_LIMIT_EXCEEDED with `Retry-After` (seconds until the
 * minute ends); a refused request is not counted.
 */
export function managementRateLimit(config: Config, stores: Pick<Stores, 'users' | 'rateLimits'>): RequestHandler {
  return async (_req, res, next) => {
    const userId: unknown = res.locals.userId;
    // A public path; an account deleted under a live session is refused by its route.
    const user = typeof userId === 'string' ? await stores.users.get(userId) : null;
    const perMinute = user ? managementPerMinute(config, user.plan) : null;
    if (user && perMinute !== null) {
      const counted = await stores.rateLimits.management(user.id, perMinute);
      if (!counted.allowed) {
        res.setHeader('Retry-After', String(counted.retryAfterS));
        throw new AppError(
          'RATE_LIMIT_EXCEEDED',
          `The management API allows ${perMinute} requests per minute on your plan; try again in ${counted.retryAfterS} s`,
        );
      }
    }
    next();
  };
}
