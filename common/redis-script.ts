import { createHash } from 'node:crypto';
import type { Redis } from './redis';

/**
 * A Lua script run by its SHA (EVALSHA), loaded on first use and again after a Redis restart
 * (NOSCRIPT), so the hot path sends the script body once, not on every call.
 */
export function redisScript(lua: string) {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async function run(redis: Redis, keyList: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(sha, keyList.length, ...keyList, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.includes('NOSCRIPT')) throw err;
      return redis.eval(lua, keyList.length, ...keyList, ...args);
    }
  };
}
