import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { reindexDevice } from '../../store/fleet-index';

/** Devices reindexed side by side. */
const BATCH = 500;
const PROJECT_DEVICES = /^project:\{s\d+\}:([0-9a-f-]{36}):devices$/;

/** Every project's id, from its device index's key (SCAN on each master, so a large Redis is not blocked). */
async function projectIds(redis: Redis): Promise<string[]> {
  const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
  const ids = new Set<string>();
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', 'project:*:devices', 'COUNT', 1000);
      cursor = next;
      for (const key of batch) {
        const id = PROJECT_DEVICES.exec(key)?.[1];
        if (id !== undefined) ids.add(id);
      }
    } while (cursor !== '0');
  }
  return [...ids];
}

/**
 * Gives every device of every project the fleet index entries it lacks (store/fleet-index.ts):
 * devices made before the index are found by the filtered device list and a job's filter once
 * this ran. Idempotent and safe beside running nodes (each device's step adds only what it lacks).
 */
export async function indexFleet(redis: Redis): Promise<{ projects: number; devices: number }> {
  const projects = await projectIds(redis);
  let devices = 0;
  for (const projectId of projects) {
    const ids = await redis.zrange(keys.projectDevices(projectId), '0', '-1');
    for (let i = 0; i < ids.length; i += BATCH) await Promise.all(ids.slice(i, i + BATCH).map((id) => reindexDevice(redis, id)));
    devices += ids.length;
  }
  return { projects: projects.length, devices };
}
