import type { Response } from 'express';
import type { Plan } from '../../common/plans';
import { AppError } from '../../common/errors';
import type { Limits, RateLimitCount, RateLimitStore } from '../../store/rate-limits';

/** Requests per minute and per UTC day of each plan on the external interfaces (SPEC §8); Free has no access. */
const PLAN_LIMITS: Record<Plan, Limits | null> = {
  free: null,
  pro: { perMinute: 60, perDay: 10_000 },
  pro_plus: { perMinute: 300, perDay: 100_000 },
  enterprise: { perMinute: 1000, perDay: null },
};

function setHeaders(res: Response, limit: number, remaining: number, resetS: number): void {
  res.setHeader('X-RateLimit-Limit', String(limit));
  res.setHeader('X-RateLimit-Remaining', String(Math.max(0, remaining)));
  res.setHeader('X-RateLimit-Reset', String(resetS));
}

/**
 * Rate limits of the external REST and simple interfaces (DESIGN §9): counted per user in Redis,
 * so every node shares them. `X-RateLimit-Limit` is the per-minute limit, `-Remaining` what the
 * caller can still send in this minute (less when the day has less left), `-Reset` the Unix second
 * the minute window ends. `multiplier` (RATE_LIMIT_MULTIPLIER) scales every limit, for benches.
 */
export function createRateLimiter(store: RateLimitStore, multiplier: number) {
  const scale = (n: number): number => Math.max(1, Math.floor(n * multiplier));

  function report(res: Response, limits: Limits, count: RateLimitCount): void {
    const dayLeft = limits.perDay === null ? Number.POSITIVE_INFINITY : limits.perDay - count.day;
    setHeaders(res, limits.perMinute, Math.min(limits.perMinute - count.minute, dayLeft), count.minuteEndsAt);
  }

  function settle(res: Response, limits: Limits, count: RateLimitCount): void {
    report(res, limits, count);
    if (count.allowed) return;
    const minuteFull = count.minute >= limits.perMinute;
    res.setHeader('Retry-After', String(Math.max(1, (minuteFull ? count.minuteEndsAt : count.dayEndsAt) - Math.floor(Date.now() / 1000))));
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      minuteFull ? 'The per-minute request limit is reached' : 'The daily request limit is reached',
    );
  }

  return {
    /** Headers for a caller not (yet) known to have access: nothing is allowed. */
    markNoAccess(res: Response): void {
      setHeaders(res, 0, 0, (Math.floor(Date.now() / 60_000) + 1) * 60);
    },

    /** The plan's limits; 403 PLAN_FEATURE_UNAVAILABLE when the plan has no access. */
    limitsOf(plan: Plan): Limits {
      const limits = PLAN_LIMITS[plan];
      if (!limits) throw new AppError('PLAN_FEATURE_UNAVAILABLE', 'The external interfaces need the Pro plan or higher');
      return { perMinute: scale(limits.perMinute), perDay: limits.perDay === null ? null : scale(limits.perDay) };
    },

    /** Counts the request; 429 RATE_LIMIT_EXCEEDED (not counted) when a window is full. */
    async consume(res: Response, userId: string, limits: Limits): Promise<void> {
      settle(res, limits, await store.hit(userId, limits));
    },

    /**
     * Counts the request without answering yet, for a caller that checks its access in the same
     * round trip: `settle` the count once access is granted, `takeBack` it (same `now`) if not.
     */
    count: (userId: string, limits: Limits, now: Date): Promise<RateLimitCount> => store.hit(userId, limits, now),

    /** The headers of a count; 429 RATE_LIMIT_EXCEEDED (it was not counted) when a window was full. */
    settle,

    /** Takes back a request `count` counted at `now` and the checks then refused. */
    async takeBack(userId: string, now: Date): Promise<void> {
      await store.takeBack(userId, now);
    },

    /** Sets the headers from the current counters without counting (for a request refused before the limit). */
    async report(res: Response, userId: string, limits: Limits): Promise<void> {
      report(res, limits, await store.peek(userId, limits));
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
