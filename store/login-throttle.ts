import { createHash } from 'node:crypto';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/**
 * The fixed-window counter of the external rate limits (rate-limit-2.lua), here over an account
 * and an address: the attempt is counted before the password is checked, so a burst cannot run
 * more checks than the limit allows.
 */
const COUNT = luaScript('rate-limit-2');
const SUCCEEDED = luaScript('login-succeeded-2');

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
      const counters = [keys.loginAccount(createHash('sha256').update(email.toLowerCase()).digest('hex'), window), keys.loginAddress(address, window)];
      const expiresAt = endsAt + EXPIRY_GRACE_S;
      const reply = (await COUNT(redis, counters, [limits.perAccount, limits.perAddress, expiresAt, expiresAt, '1'])) as [number, number, number];
      return {
        allowed: reply[0] === 1,
        retryAfterS: Math.max(1, endsAt - Math.floor(now / 1000)),
        succeeded: async () => {
          await SUCCEEDED(redis, counters, []);
        },
      };
    },
  };
}

export type LoginThrottleStore = ReturnType<typeof createLoginThrottleStore>;
