import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { countWindows, secondsLeft, windowAt } from './window-counter';

export interface ProvisionLimits {
  perAddress: number;
  windowS: number;
}

/**
 * Provisioning throttled per client address (docs/limits.md "Register and login throttles"): only
 * refused keys are counted, so a factory's devices booting at once behind one address never count;
 * once an address's window is full, every attempt from it is refused (429) before its key is
 * checked. A key check is a hash and three reads (no scrypt), so a concurrent burst of guesses
 * overshooting the limit by its own size costs nothing worth counting ahead.
 */
export function createProvisionThrottleStore(redis: Redis) {
  const windowOf = (address: string, limits: ProvisionLimits, now: number) => {
    const { index, endsAt } = windowAt(now, limits.windowS);
    return { key: keys.provisionAddress(address, index), limit: limits.perAddress, endsAt };
  };
  return {
    /** Whether `address` may try a key now (its refused keys below the limit), and when its window ends. */
    async admit(address: string, limits: ProvisionLimits, now = Date.now()): Promise<{ allowed: boolean; retryAfterS: number }> {
      const window = windowOf(address, limits, now);
      const { allowed } = await countWindows(redis, [window], false);
      return { allowed, retryAfterS: secondsLeft(window.endsAt, now) };
    },

    /** Counts a refused key from `address`. */
    async refused(address: string, limits: ProvisionLimits, now = Date.now()): Promise<void> {
      await countWindows(redis, [windowOf(address, limits, now)]);
    },
  };
}

export type ProvisionThrottleStore = ReturnType<typeof createProvisionThrottleStore>;
