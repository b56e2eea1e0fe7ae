import { createHash } from 'node:crypto';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/**
 * Fixed-window counters over an account and an address: the attempt is counted before the password
 * is checked, so a burst cannot run more checks than the limit allows. The two counters are in
 * different slots (docs/architecture.md "Redis Cluster"): the account's is counted first, then the
 * address's; when the address refuses, the account's count is taken back, so a refused attempt
 * counts against neither (a concurrent attempt may meanwhile see the account one higher).
 */
const COUNT = luaScript('count-attempt-1');
const TAKE_BACK = luaScript('take-back-1');

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

/** Counters live a little past their window, so a node whose clock lags still finds them. */
const EXPIRY_GRACE_S = 60;

/** Login throttling (docs/api.md): wrong passwords counted per account and per client address in Redis, shared by every node. */
export function createLoginThrottleStore(redis: Redis) {
  return {
    /** Counts an attempt as failed until it succeeds; refused (and not counted) when either counter is full. */
    async attempt(email: string, address: string, limits: LoginLimits, now = Date.now()): Promise<LoginAttempt> {
      const window = Math.floor(now / 1000 / limits.windowS);
      const endsAt = (window + 1) * limits.windowS;
      const account = keys.loginAccount(createHash('sha256').update(email.toLowerCase()).digest('hex'), window);
      const byAddress = keys.loginAddress(address, window);
      const expiresAt = endsAt + EXPIRY_GRACE_S;
      let allowed = (await COUNT(redis, [account], [limits.perAccount, expiresAt])) === 1;
      if (allowed && (await COUNT(redis, [byAddress], [limits.perAddress, expiresAt])) !== 1) {
        await TAKE_BACK(redis, [account], []);
        allowed = false;
      }
      return {
        allowed,
        retryAfterS: Math.max(1, endsAt - Math.floor(now / 1000)),
        /** The account's count is reset, and this attempt taken back from the address. */
        succeeded: async () => {
          await redis.del(account);
          await TAKE_BACK(redis, [byAddress], []);
        },
      };
    },
  };
}

export type LoginThrottleStore = ReturnType<typeof createLoginThrottleStore>;
