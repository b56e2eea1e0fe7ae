import { createHash } from 'node:crypto';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { countWindows, secondsLeft, takeBack, windowAt } from './window-counter';

export interface LoginLimits {
  perAccount: number;
  perAddress: number;
  windowS: number;
}

export interface LoginAttempt {
  allowed: boolean;
  /** Seconds until the window that refused this attempt ends (at least 1). */
  retryAfterS: number;
  /** The password was right: resets the account's count and un-counts this attempt from the address. */
  succeeded(): Promise<void>;
}

/**
 * Login throttling (docs/limits.md "Register and login throttles"): wrong passwords counted per
 * account and per client address in Redis, shared by every node, with the one window counter
 * (store/window-counter.ts). The attempt is counted before the password is checked, so a burst
 * cannot run more checks than the limit allows. The two counters are in different slots
 * (docs/architecture.md "Redis Cluster"): the account's is counted first, then the address's; when
 * the address refuses, the account's count is taken back, so a refused attempt counts against
 * neither (a concurrent attempt may meanwhile see the account one higher).
 */
export function createLoginThrottleStore(redis: Redis) {
  return {
    /** Counts an attempt as failed until it succeeds; refused (and not counted) when either counter is full. */
    async attempt(email: string, address: string, limits: LoginLimits, now = Date.now()): Promise<LoginAttempt> {
      const { index, endsAt } = windowAt(now, limits.windowS);
      const account = keys.loginAccount(createHash('sha256').update(email.toLowerCase()).digest('hex'), index);
      const byAddress = keys.loginAddress(address, index);
      let { allowed } = await countWindows(redis, [{ key: account, limit: limits.perAccount, endsAt }]);
      if (allowed && !(await countWindows(redis, [{ key: byAddress, limit: limits.perAddress, endsAt }])).allowed) {
        await takeBack(redis, account);
        allowed = false;
      }
      return {
        allowed,
        retryAfterS: secondsLeft(endsAt, now),
        /** The account's count is reset, and this attempt taken back from the address. */
        succeeded: async () => {
          await redis.del(account);
          await takeBack(redis, byAddress);
        },
      };
    },
  };
}

export type LoginThrottleStore = ReturnType<typeof createLoginThrottleStore>;
