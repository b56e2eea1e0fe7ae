import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { Pool } from '../../store/pg/pool';
import { createDevices, type BenchAccount } from './api';
import type { ServiceProcess } from './service-process';
import { printRows } from './stats';

const DEVICES = 10;
const BULK_MAX = 1000;
const LANES = 4;

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
}

async function stored(pool: Pool, deviceIds: readonly string[]): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM points WHERE device_id = ANY($1::uuid[])', [deviceIds]);
  return rows[0]?.n ?? 0;
}

const mib = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/**
 * Redis memory against history length: `points` readings imported through POST /data/{id}/bulk
 * (ten devices, one pin each, timestamps over the last day), waited for until every one is in
 * PostgreSQL; Redis used_memory before and after. History lives in PostgreSQL, so it must not grow
 * with them.
 */
export async function historyMemoryPhase(options: {
  service: ServiceProcess;
  account: BenchAccount;
  redis: Redis;
  pool: Pool;
  points: number;
}): Promise<void> {
  const { account, redis, pool, points } = options;
  const deviceIds = await createDevices(account, DEVICES);
  const before = await usedMemory(redis);
  const start = Date.now() - 86_400_000;
  const step = 86_400_000 / Math.ceil(points / DEVICES);
  const started = performance.now();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < points) {
      const first = next;
      next += BULK_MAX;
      const count = Math.min(BULK_MAX, points - first);
      const device = deviceIds[Math.floor(first / BULK_MAX) % DEVICES] as string;
      const base = Math.floor(first / (BULK_MAX * DEVICES)) * BULK_MAX;
      const readings = Array.from({ length: count }, (_, i) => ({
        pin: 1,
        value: String((first + i) % 1000),
        timestamp: new Date(start + Math.floor((base + i) * step)).toISOString(),
      }));
      await account.call('POST', `/api/v1/data/${device}/bulk`, { readings });
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  const answered = performance.now() - started;
  while ((await stored(pool, deviceIds)) < points) await new Promise((r) => setTimeout(r, 250));
  const persisted = performance.now() - started;
  const after = await usedMemory(redis);
  printRows(`\nRedis memory against history: ${points} points imported through POST /bulk (${LANES} requests at a time), all persisted`, [
    ['answered', `in ${(answered / 1000).toFixed(1)} s (${((points * 1000) / answered).toFixed(0)} readings/s)`],
    ['in PostgreSQL', `after ${(persisted / 1000).toFixed(1)} s (${((points * 1000) / persisted).toFixed(0)} readings/s)`],
    ['Redis used_memory', `${mib(before)} before, ${mib(after)} after (${after >= before ? '+' : ''}${mib(after - before)})`],
  ]);
}
