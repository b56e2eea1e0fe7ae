/**
 * Moves a standalone Redis from the pre-shard key scheme to the shard scheme (docs/operations.md
 * "Redis key migration"). Run with every gateway and worker stopped, after the old outbox and
 * history streams were drained (it refuses otherwise): `node dist/scripts/migrate/shard-keys.js`
 * with REDIS_URL set. Idempotent: a key already renamed is skipped, so a run that stopped midway
 * is run again.
 */
import { Redis } from 'ioredis';
import { shardKeyName } from './shard-key-name';

async function main(): Promise<void> {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is required');
  const redis = new Redis(url, { connectionName: 'dds-migrate-shard-keys' });
  try {
    let cursor = '0';
    let renamed = 0;
    let dropped = 0;
    do {
      const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) {
        if (/^(outbox|history):[^{]+$/.test(key)) {
          const length = await redis.xlen(key);
          if (length > 0) throw new Error(`${key} still holds ${length} entries: start the old version until it is drained, then stop it`);
          await redis.del(key);
          dropped++;
          continue;
        }
        if (/^ratelimit:[^{]+$/.test(key)) {
          await redis.del(key);
          dropped++;
          continue;
        }
        const target = shardKeyName(key);
        if (target !== null && (await redis.renamenx(key, target)) === 1) renamed++;
      }
    } while (cursor !== '0');
    process.stdout.write(`renamed ${renamed} keys, dropped ${dropped} (drained streams, rate-limit counters)\n`);
  } finally {
    redis.disconnect();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
