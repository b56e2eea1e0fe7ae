import type { Redis } from '../../common/redis';
import { luaScript } from './load';

const HSET_WHILE_EXISTS = luaScript('hset-while-exists-2');

/**
 * Sets fields of a hash only while its owner (a device, a project) exists, so a write racing a
 * delete cannot leave an orphan or resurrect a record. False when the owner is gone.
 */
export async function hsetWhileExists(redis: Redis, owner: string, key: string, fields: Record<string, string>): Promise<boolean> {
  const flat = Object.entries(fields).flat();
  if (flat.length === 0) return (await redis.exists(owner)) === 1;
  return (await HSET_WHILE_EXISTS(redis, [owner, key], flat)) === 1;
}

/** Sets fields of a hash only while the hash itself exists. */
export function hsetIfExists(redis: Redis, key: string, fields: Record<string, string>): Promise<boolean> {
  return hsetWhileExists(redis, key, key, fields);
}
