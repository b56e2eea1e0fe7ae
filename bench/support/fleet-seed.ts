import { randomUUID } from 'node:crypto';
import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { writeInfo, writeStatus } from '../../store/device-mirror';
import { writeDeviceRecord } from '../../store/fleet-index';
import { pool } from './lanes';

/** Store steps in flight at once while seeding. */
const LANES = 256;
/** Members one ZADD of the project's device index names. */
const ZADD_CHUNK = 1000;

/** What the seeded fleet looks like, so that each filter has a known share of it. */
export interface SeedShape {
  /** Distinct `site-<k>` tags, one per device in turn (1 % each at 100). */
  sites: number;
  /** Firmware versions `1.<k>.0`, one per device in turn (10 % each at 10). */
  versions: number;
}

/**
 * `count` devices in a project written through the store's own steps (a device's record with its
 * fleet index entries, its mirror's info and status), not the API: no broker account, no twin
 * (the list reads neither). Every other device online; lastSeen spread over the last day; created
 * a millisecond apart, so the list's order is the seeding order. Resolves with the ms it took.
 */
export async function seedDevices(redis: Redis, projectId: string, count: number, shape: SeedShape): Promise<number> {
  const t0 = Date.now();
  const created = t0 - count;
  const ids = Array.from({ length: count }, () => randomUUID());
  await pool(ids, LANES, async (id, i) => {
    await writeDeviceRecord(redis, id, {
      id,
      projectId,
      name: `fleet-${i}`,
      description: '',
      tags: JSON.stringify([`site-${i % shape.sites}`]),
      createdAt: new Date(created + i).toISOString(),
      tokenLast4: '0000',
      simpleApiEnabled: '0',
    });
    const seen = new Date(t0 - (i % 86_400) * 1000).toISOString();
    await writeInfo(redis, id, { firmwareVersion: `1.${i % shape.versions}.0` });
    await writeStatus(redis, { deviceId: id, status: i % 2 === 0 ? 'online' : 'offline', statusChangedAt: seen, lastSeen: seen });
  });
  for (let i = 0; i < count; i += ZADD_CHUNK) {
    const members = ids.slice(i, i + ZADD_CHUNK).flatMap((id, k) => [created + i + k, id]);
    await redis.zadd(keys.projectDevices(projectId), ...members);
  }
  return Date.now() - t0;
}
