import type { Redis } from '../../common/redis';
import { luaScript } from './load';

/**
 * Replaces a device credential in one atomic step: the old lookup key goes, the new one is set,
 * and the device hash records the new hash (plus any extra fields). No-op (false) when the device is gone.
 */
const SWAP_CREDENTIAL = luaScript('swap-credential-n');

export async function swapCredential(
  redis: Redis,
  args: {
    deviceKey: string;
    hashField: string;
    newHash: string;
    lookupTemplate: string;
    deviceId: string;
    extra: Record<string, string>;
  },
): Promise<boolean> {
  const extra = Object.entries(args.extra).flat();
  const done = await SWAP_CREDENTIAL(
    redis,
    [args.deviceKey],
    [args.hashField, args.newHash, args.lookupTemplate, args.deviceId, ...extra],
  );
  return done === 1;
}
