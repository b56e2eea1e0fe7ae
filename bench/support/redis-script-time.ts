import type { Redis } from 'ioredis';
import { median } from './stats';

/** Makes Redis log every command's duration from now on, starting from an empty slow log. */
export async function startCommandLog(redis: Redis): Promise<void> {
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  await redis.config('SET', 'slowlog-max-len', '10000');
  await redis.slowlog('RESET');
}

/**
 * Median time (ms) Redis spent in the `count` longest scripts (EVALSHA/EVAL) logged since the last
 * reset, then resets the log. A script blocks every other client of that Redis while it runs.
 */
export async function longestScriptsMs(redis: Redis, count: number): Promise<number> {
  const entries = (await redis.slowlog('GET', '10000')) as [number, number, number, string[]][];
  await redis.slowlog('RESET');
  const micros = entries
    .filter(([, , , args]) => /^eval(sha)?$/i.test(args[0] ?? ''))
    .map(([, , duration]) => duration)
    .sort((a, b) => b - a)
    .slice(0, count);
  return median(micros) / 1000;
}
