import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/** Fixed-window rate limit of one user, minute and day, in one atomic step (rate-limit-2.lua). */
const RATE_LIMIT = luaScript('rate-limit-2');

export interface Limits {
  perMinute: number;
  /** null: no daily limit. */
  perDay: number | null;
}

export interface RateLimitCount {
  allowed: boolean;
  /** Requests counted in the current minute and UTC day, this one included when it was counted. */
  minute: number;
  day: number;
  /** Unix seconds when the current minute window and UTC day end. */
  minuteEndsAt: number;
  dayEndsAt: number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Counters outlive their window a little, so a node whose clock lags still finds them. */
const EXPIRY_GRACE_S = 60;

/** Per-user request counters of the external interfaces (DESIGN §9), shared by every node. */
export function createRateLimitStore(redis: Redis) {
  async function run(userId: string, limits: Limits, now: Date, count: boolean): Promise<RateLimitCount> {
    const ms = now.getTime();
    const window = Math.floor(ms / MINUTE_MS);
    const minuteEndsAt = ((window + 1) * MINUTE_MS) / 1000;
    const dayEndsAt = ((Math.floor(ms / DAY_MS) + 1) * DAY_MS) / 1000;
    const reply = (await RATE_LIMIT(
      redis,
      [keys.rateLimitMinute(userId, window), keys.rateLimitDay(userId, now.toISOString().slice(0, 10))],
      [limits.perMinute, limits.perDay ?? -1, minuteEndsAt + EXPIRY_GRACE_S, dayEndsAt + EXPIRY_GRACE_S, count ? '1' : '0'],
    )) as [number, number, number];
    return { allowed: reply[0] === 1, minute: reply[1], day: reply[2], minuteEndsAt, dayEndsAt };
  }

  return {
    /** Counts one request unless a window is full; a refused request is not counted. */
    hit: (userId: string, limits: Limits, now = new Date()) => run(userId, limits, now, true),
    /** Reads the counters without counting. */
    peek: (userId: string, limits: Limits, now = new Date()) => run(userId, limits, now, false),
  };
}

export type RateLimitStore = ReturnType<typeof createRateLimitStore>;
