/**
 * Moves a standalone Redis from the pre-shard key scheme to the shard scheme (docs/operations.md
 * "Redis key migration"). Run with every gateway and worker stopped, after the old outbox and
 * history streams were drained (it refuses otherwise): `node dist/scripts/migrate/shard-keys.js`
 * with REDIS_URL set. Idempotent: a key already renamed is skipped, so a run that stopped midway
 * is run again.
 */
import { Redis } from 'ioredis';
import { migrateShardKeys } from './migrate-shard-keys';

async function main(): Promise<void> {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is required');
  const redis = new Redis(url, { connectionName: 'dds-migrate-shard-keys' });
  try {
    const { renamed, dropped } = await migrateShardKeys(redis);
    process.stdout.write(`renamed ${renamed} keys, dropped ${dropped} (drained streams, rate-limit counters)\n`);
  } finally {
    redis.disconnect();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
