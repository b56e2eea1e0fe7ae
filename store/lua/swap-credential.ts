import type { Redis } from '../../common/redis';
import { luaScript } from './load';

/**
 * Replaces a device credential in one atomic step: the old lookup key goes, the new one is set,
 * and the device hash records the new hash (plus any extra fields). With `stagedField`, only when
 * that field holds the new hash (it is then cleared).
 */
const SWAP_CREDENTIAL = luaScript('swap-credential-n');

/** `swapped`; `gone`: the device is gone; `not-staged`: the staged field does not hold the new hash. */
export type SwapOutcome = 'swapped' | 'gone' | 'not-staged';

export async function swapCredential(
  redis: Redis,
  args: {
    deviceKey: string;
    hashField: string;
    newHash: string;
    lookupTemplate: string;
    deviceId: string;
    stagedField?: string;
    extra: Record<string, string>;
  },
): Promise<SwapOutcome> {
  const extra = Object.entries(args.extra).flat();
  const done = await SWAP_CREDENTIAL(
    redis,
    [args.deviceKey],
    [args.hashField, args.newHash, args.lookupTemplate, args.deviceId, args.stagedField ?? '', ...extra],
  );
  return done === 1 ? 'swapped' : done === 0 ? 'gone' : 'not-staged';
}

