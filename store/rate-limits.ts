import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { countWindows, secondsLeft, takeBack, windowAt, type Window } from './window-counter';

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

/** The answer of the management rate limit: allowed, or refused until the minute ends. */
export interface ManagementCount {
  allowed: boolean;
  retryAfterS: number;
}

const MINUTE_S = 60;
const DAY_S = 86_400;

/** The user's external minute and UTC day counter keys at `now` (both carry the user's tag: one slot). */
function externalKeys(userId: string, now: Date): [string, string] {
  return [keys.rateLimitMinute(userId, windowAt(now.getTime(), MINUTE_S).index), keys.rateLimitDay(userId, now.toISOString().slice(0, 10))];
}

/** The user's external minute and UTC day windows at `now`, counted in one step. */
function externalWindows(userId: string, limits: Limits, now: Date): [Window, Window] {
  const [minuteKey, dayKey] = externalKeys(userId, now);
  return [
    { key: minuteKey, limit: limits.perMinute, endsAt: windowAt(now.getTime(), MINUTE_S).endsAt },
    { key: dayKey, limit: limits.perDay, endsAt: windowAt(now.getTime(), DAY_S).endsAt },
  ];
}

/**
 * Per-user request counters in Redis, shared by every node: the external REST and simple
 * interfaces' minute and day (DESIGN §9), and the management API's minute (DESIGN §11), each its
 * own budget. Both count through the one window counter (store/window-counter.ts).
 */
export function createRateLimitStore(redis: Redis) {
  async function run(userId: string, limits: Limits, now: Date, count: boolean): Promise<RateLimitCount> {
    const [minute, day] = externalWindows(userId, limits, now);
    const { allowed, counts } = await countWindows(redis, [minute, day], count);
    return { allowed, minute: counts[0] ?? 0, day: counts[1] ?? 0, minuteEndsAt: minute.endsAt, dayEndsAt: day.endsAt };
  }

  return {
    /** Counts one external request unless a window is full; a refused request is not counted. */
    hit: (userId: string, limits: Limits, now = new Date()) => run(userId, limits, now, true),
    /** Reads the external counters without counting. */
    peek: (userId: string, limits: Limits, now = new Date()) => run(userId, limits, now, false),
    /**
     * Takes back an external request `hit` counted at `now` (its minute and day windows) that was
     * then refused after all. Between the two, the request was counted like any other.
     */
    async takeBack(userId: string, now: Date): Promise<void> {
      await Promise.all(externalKeys(userId, now).map((key) => takeBack(redis, key)));
    },
    /** Counts one management request of the user against `perMinute`; refused (not counted) when the minute is full. */
    async management(userId: string, perMinute: number, now = Date.now()): Promise<ManagementCount> {
      const minute = windowAt(now, MINUTE_S);
      const { allowed } = await countWindows(redis, [
        { key: keys.managementRateLimit(userId, minute.index), limit: perMinute, endsAt: minute.endsAt },
      ]);
      return { allowed, retryAfterS: secondsLeft(minute.endsAt, now) };
    },
  };
}

export type RateLimitStore = ReturnType<typeof createRateLimitStore>;
