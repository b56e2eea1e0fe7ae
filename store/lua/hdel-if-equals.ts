import type { Redis } from '../../common/redis';
import { luaScript } from './load';

const HDEL_IF_EQUALS = luaScript('hdel-if-equals-1');

/** Deletes a hash field only while it holds `value`; true when it did. */
export async function hdelIfEquals(redis: Redis, key: string, field: string, value: string): Promise<boolean> {
  return (await HDEL_IF_EQUALS(redis, [key], [field, value])) === 1;
}
