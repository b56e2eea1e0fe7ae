import type { Redis } from '../../common/redis';

const HSET_IF_EXISTS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`;

/** Sets fields of a hash only while it exists, so a write racing a delete cannot resurrect a record. */
export async function hsetIfExists(redis: Redis, key: string, fields: Record<string, string>): Promise<boolean> {
  const flat = Object.entries(fields).flat();
  if (flat.length === 0) return (await redis.exists(key)) === 1;
  return (await redis.eval(HSET_IF_EXISTS, 1, key, ...flat)) === 1;
}
