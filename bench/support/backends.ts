import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMosquitto, startPostgres, startRedis, startTemporal } from '../../scripts/dev-servers';
import type { Cleanup } from './cleanup';
import { REPO_ROOT } from './paths';

/** The servers a bench runs the service against, each a throw-away process in one temp dir. */
export interface Backends {
  dir: string;
  redisUrl: string;
  mqttUrl: string;
  mqttUsername: string;
  mqttPassword: string;
  temporalAddress: string;
  /** PostgreSQL for history: durable (fsync on), as `npm start` runs it, so write figures are honest. */
  databaseUrl: string;
  pids: { redis: number; mosquitto: number; temporal: number; postgres: number };
}

/** Starts Redis, Mosquitto, a Temporal dev server and PostgreSQL side by side; each is stopped by `cleanup`. */
export async function startBackends(cleanup: Cleanup): Promise<Backends> {
  const dir = await mkdtemp(join(tmpdir(), 'dds-bench-'));
  // BENCH_KEEP_DIR=1 keeps the run's directory (the nodes' logs, the servers' data) and says where it is.
  if (process.env.BENCH_KEEP_DIR === '1') cleanup.add('temp dir', async () => void process.stdout.write(`kept ${dir}\n`));
  else cleanup.add('temp dir', () => rm(dir, { recursive: true, force: true }));
  const track = async <T extends { stop(): Promise<void> }>(name: string, started: Promise<T>): Promise<T> => {
    const server = await started;
    cleanup.add(name, () => server.stop());
    return server;
  };
  const pending = [
    track('redis', startRedis({ dir })),
    track('mosquitto', startMosquitto({ dir })),
    // BENCH_TEMPORAL_DB=file: the dev server keeps its SQLite in a file, as `npm start` runs it,
    // instead of in memory (where it failed at 78,000–88,000 twins, near 4 GB: docs/benchmarks.md).
    track(
      'temporal',
      startTemporal({
        dir,
        projectRoot: REPO_ROOT,
        ...(process.env.BENCH_TEMPORAL_DB === 'file' ? { dbFile: join(dir, 'temporal.db') } : {}),
      }),
    ),
    track('postgres', startPostgres({ dir, durable: true })),
  ] as const;
  // Settle all first: a server still booting when another fails must be tracked before cleanup runs.
  await Promise.allSettled(pending);
  const [redis, mosquitto, temporal, postgres] = await Promise.all(pending);
  return {
    dir,
    redisUrl: redis.url,
    mqttUrl: mosquitto.url,
    mqttUsername: mosquitto.serviceUsername,
    mqttPassword: mosquitto.servicePassword,
    temporalAddress: temporal.address,
    databaseUrl: postgres.url,
    pids: { redis: redis.pid, mosquitto: mosquitto.pid, temporal: temporal.pid, postgres: postgres.pid },
  };
}
