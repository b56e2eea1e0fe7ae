import { performance } from 'node:perf_hooks';
import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { summarize, type Summary } from './stats';

/** Reads in flight at once: 100,000 at once outlive the connection's command timeout. */
const CHUNK = 5000;

/**
 * The `tag` filter as the device list chose before the fleet index (4988b61's parent): every id of
 * the project, then every device's tags, one HGET each (pipelined, 5,000 at a time), kept in memory. Timed `runs`
 * times in the bench's own process: what an index-less filtered page cost, for the table's side.
 */
export async function scanByTag(redis: Redis, projectId: string, tag: string, runs: number): Promise<Summary & { matches: number }> {
  const times: number[] = [];
  let matches = 0;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const ids = await redis.zrange(keys.projectDevices(projectId), '0', '-1');
    const tags: (string | null)[] = [];
    for (let i = 0; i < ids.length; i += CHUNK) {
      tags.push(...(await Promise.all(ids.slice(i, i + CHUNK).map((id) => redis.hget(keys.device(id), 'tags')))));
    }
    matches = tags.filter((json) => json !== null && (JSON.parse(json) as string[]).includes(tag)).length;
    times.push(performance.now() - started);
  }
  return { ...summarize(times), matches };
}
