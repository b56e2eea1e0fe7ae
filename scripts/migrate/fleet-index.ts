/**
 * Builds the fleet index for devices made before it (docs/jobs.md "Fleet search: the index"):
 * `node dist/scripts/migrate/fleet-index.js` with the service's Redis settings (REDIS_URL or
 * REDIS_CLUSTER_NODES). Safe while nodes run, and to run again.
 */
import { loadConfig } from '../../common/config';
import { createRedis } from '../../common/redis';
import { indexFleet } from './index-fleet';

async function main(): Promise<void> {
  const redis = createRedis(loadConfig(), 'dds-migrate-fleet-index');
  try {
    const { projects, devices } = await indexFleet(redis);
    process.stdout.write(`fleet index: ${devices} devices of ${projects} projects indexed\n`);
  } finally {
    redis.disconnect();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
