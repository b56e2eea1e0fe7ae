import type { Redis } from '../../common/redis';

/**
 * Replaces a device credential in one atomic step: the old lookup key goes, the new one is set,
 * and the device hash records the new hash (plus any extra fields). No-op (false) when the device is gone.
 */
const SWAP_CREDENTIAL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then redis.call('DEL', (string.gsub(ARGV[3], '{hash}', old))) end
redis.call('SET', (string.gsub(ARGV[3], '{hash}', ARGV[2])), ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
for i = 5, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1`;

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
  const done = await redis.eval(
    SWAP_CREDENTIAL,
    1,
    args.deviceKey,
    args.hashField,
    args.newHash,
    args.lookupTemplate,
    args.deviceId,
    ...extra,
  );
  return done === 1;
}
