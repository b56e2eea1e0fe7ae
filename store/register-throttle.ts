import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { countWindows, secondsLeft, windowAt } from './window-counter';

export interface RegisterLimits {
  perAddress: number;
  windowS: number;
}

/**
 * Registrations counted per client address (docs/limits.md "Register and login throttles"), in
 * Redis, shared by every node: every attempt past validation counts (it runs scrypt), whether it
 * creates an account or not; a refused one does not.
 */
export function createRegisterThrottleStore(redis: Redis) {
  return {
    /** Counts a registration from `address`; refused (not counted) when its window is full. */
    async attempt(address: string, limits: RegisterLimits, now = Date.now()): Promise<{ allowed: boolean; retryAfterS: number }> {
      const { index, endsAt } = windowAt(now, limits.windowS);
      const { allowed } = await countWindows(redis, [{ key: keys.registerAddress(address, index), limit: limits.perAddress, endsAt }]);
      return { allowed, retryAfterS: secondsLeft(endsAt, now) };
    },
  };
}

export type RegisterThrottleStore = ReturnType<typeof createRegisterThrottleStore>;
