import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/** Fixed-window rate limit of one user, minute and day, in one atomic step (rate-limit-2.lua). */
const RATE_LIMIT = luaScript('rate-limit-2');
/** Takes back one count from one counter (take-back-1.lua, shared with the login throttle). */
const TAKE_BACK = luaScript('take-back-1');

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
/** The user's minute and day counter keys at `now`. */
function windowKeys(userId: string, now: Date): [string, string] {
  return [keys.rateLimitMinute(userId, Math.floor(now.getTime() / MINUTE_MS)), keys.rateLimitDay(userId, now.toISOString().slice(0, 10))];
}

export function createRateLimitStore(redis: Redis) {
  async function run(userId: string, limits: Limits, now: Date, count: boolean): Promise<RateLimitCount> {
    const ms = now.getTime();
    const minuteEndsAt = ((Math.floor(ms / MINUTE_MS) + 1) * MINUTE_MS) / 1000;
    const dayEndsAt = ((Math.floor(ms / DAY_MS) + 1) * DAY_MS) / 1000;
    const reply = (await RATE_LIMIT(
      redis,
      windowKeys(userId, now),
      [limits.perMinute, limits.perDay ?? -1, minuteEndsAt + EXPIRY_GRACE_S, dayEndsAt + EXPIRY_GRACE_S, count ? '1' : '0'],
    )) as [number, number, number];
    return { allowed: reply[0] === 1, minute: reply[1], day: reply[2], minuteEndsAt, dayEndsAt };
  }

  return {
    /** Counts one request unless a window is full; a refused request is not counted. */
    hit: (userId: string, limits: Limits, now = new Date()) => run(userId, limits, now, true),
    /** Reads the counters without counting. */
    peek: (userId: string, limits: Limits, now = new Date()) => run(userId, limits, now, false),
    /**
     * Takes back a request `hit` counted at `now` (its minute and day windows, one round trip) that
     * was then refused after all. Between the two, the request was counted like any other.
     */
    async takeBack(userId: string, now: Date): Promise<void> {
      await Promise.all(windowKeys(userId, now).map((key) => TAKE_BACK(redis, [key], [])));
    },
  };
}

export type RateLimitStore = ReturnType<typeof createRateLimitStore>;
