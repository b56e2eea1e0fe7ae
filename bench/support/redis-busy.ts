import type { Redis } from 'ioredis';

/** Total time (µs) Redis has spent executing commands since its start (sum of INFO commandstats usec). */
export async function redisBusyMicros(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let total = 0;
  for (const match of info.matchAll(/usec=(\d+)/g)) total += Number(match[1]);
  return total;
}
