import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { type DeviceFilter, filtersRecord, filtersState, matchesRecord, matchesState } from './device-filter';

/**
 * The ids of the given projects' devices that match `filter` (store/device-filter.ts), oldest first:
 * the device list's page and a job's targets (docs/jobs.md) are chosen by this one selection.
 */
export async function selectDeviceIds(redis: Redis, projectIds: string[], filter: DeviceFilter): Promise<string[]> {
  const idLists = await Promise.all(projectIds.map((p) => redis.zrange(keys.projectDevices(p), '0', '-1', 'WITHSCORES')));
  let ids = idLists
    .flatMap((flat) => {
      const pairs: { id: string; score: number }[] = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push({ id: flat[i] as string, score: Number(flat[i + 1]) });
      return pairs;
    })
    .sort((a, b) => a.score - b.score || a.id.localeCompare(b.id))
    .map((p) => p.id);
  if (filtersRecord(filter)) {
    const records = await Promise.all(ids.map((id) => redis.hmget(keys.device(id), 'name', 'tags', 'templateId', 'serial')));
    ids = ids.filter((_, i) => matchesRecord(records[i] ?? [], filter));
  }
  if (filtersState(filter)) {
    const states = await Promise.all(ids.map((id) => redis.hmget(keys.deviceState(id), 'status', 'firmwareVersion', 'lastSeen')));
    ids = ids.filter((_, i) => matchesState(states[i] ?? [], filter));
  }
  return ids;
}
