import type { Redis } from '../../common/redis';
import { luaScript } from './load';

/**
 * Replaces a device credential (docs/architecture.md "Redis Cluster": three single-slot steps): the
 * new lookup key is set, then the device hash records the new hash (plus any extra fields) in one
 * step, then the old lookup key goes. A lookup counts only while the device holds its hash, so the
 * credential changes exactly at the device step; a crash around it leaves a lookup key that
 * counts for nothing. With `stagedField`, only when that field holds the new hash (it is then cleared).
 */
const SWAP_CREDENTIAL = luaScript('swap-credential-1');

/** `swapped`; `gone`: the device is gone; `not-staged`: the staged field does not hold the new hash. */
export type SwapOutcome = 'swapped' | 'gone' | 'not-staged';

export async function swapCredential(
  redis: Redis,
  args: {
    deviceKey: string;
    hashField: string;
    newHash: string;
    /** The lookup key with `{hash}` for the credential's hash. */
    lookupTemplate: string;
    deviceId: string;
    stagedField?: string;
    extra: Record<string, string>;
  },
): Promise<SwapOutcome> {
  const lookup = (hash: string): string => args.lookupTemplate.replace('{hash}', hash);
  await redis.set(lookup(args.newHash), args.deviceId);
  const extra = Object.entries(args.extra).flat();
  const [done, old] = (await SWAP_CREDENTIAL(
    redis,
    [args.deviceKey],
    [args.hashField, args.newHash, args.stagedField ?? '', ...extra],
  )) as [number, string?];
  if (done !== 1) {
    await redis.del(lookup(args.newHash));
    return done === 0 ? 'gone' : 'not-staged';
  }
  if (old && old !== args.newHash) await redis.del(lookup(old));
  return 'swapped';
}
