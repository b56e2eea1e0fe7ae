import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import type { DeviceFilter } from './device-filter';
import { indexedMatch } from './fleet-index';

/** How many ids one ZMSCORE names. */
const SCORE_CHUNK = 10_000;

interface Ranked {
  id: string;
  score: number;
}

/** [id, score, id, score, ...] as ZRANGE WITHSCORES answers. */
function pairs(flat: string[]): Ranked[] {
  const ranked: Ranked[] = [];
  for (let i = 0; i < flat.length; i += 2) ranked.push({ id: flat[i] as string, score: Number(flat[i + 1]) });
  return ranked;
}

/** The ids `filter` picks of one project's devices, each with its place in the project (createdAt, epoch ms). */
async function projectMatches(redis: Redis, projectId: string, filter: DeviceFilter): Promise<Ranked[]> {
  const { within, without } = await indexedMatch(redis, projectId, filter);
  const excluded = (id: string) => without.some((set) => set.has(id));
  const [smallest, ...others] = [...within].sort((a, b) => a.size - b.size);
  if (smallest === undefined) {
    const all = pairs(await redis.zrange(keys.projectDevices(projectId), '0', '-1', 'WITHSCORES'));
    return without.length === 0 ? all : all.filter((r) => !excluded(r.id));
  }
  const ids = [...smallest].filter((id) => others.every((set) => set.has(id)) && !excluded(id));
  const ranked: Ranked[] = [];
  for (let i = 0; i < ids.length; i += SCORE_CHUNK) {
    const chunk = ids.slice(i, i + SCORE_CHUNK);
    const scores = await redis.zmscore(keys.projectDevices(projectId), ...chunk);
    // An entry whose device is not (or no longer) in its project is no match.
    chunk.forEach((id, k) => {
      const score = scores[k];
      if (score !== null && score !== undefined) ranked.push({ id, score: Number(score) });
    });
  }
  return ranked;
}

/**
 * The ids of the given projects' devices that match `filter` (store/device-filter.ts), oldest first:
 * the device list's page and a job's targets (docs/jobs.md) are chosen by this one selection. The
 * filter's fields are read from the fleet index (store/fleet-index.ts), never device by device.
 */
export async function selectDeviceIds(redis: Redis, projectIds: string[], filter: DeviceFilter): Promise<string[]> {
  const matches = await Promise.all(projectIds.map((p) => projectMatches(redis, p, filter)));
  return matches
    .flat()
    .sort((a, b) => a.score - b.score || a.id.localeCompare(b.id))
    .map((r) => r.id);
}
