import type { Redis } from 'ioredis';
import { keys } from '../../common/redis-keys';

/**
 * The name a key of the pre-shard scheme has under the shard scheme (docs/operations.md "Redis key
 * migration"), or null when it keeps its name (lookups by hash, email or login subject) or is
 * dropped (rate-limit counters, which expire within a day; the old streams, which are drained first).
 */
export function shardKeyName(old: string): string | null {
  if (old.includes('{')) return null;
  const m = /^(device|project|user|apikey|rule|widget|notification|command):([^:]+)(?::(.*))?$/.exec(old);
  if (!m) return null;
  const [, kind, id, rest] = m as unknown as [string, string, string, string | undefined];
  if ((kind === 'device' && (id === 'dt' || id === 'iot')) || (kind === 'user' && id === 'email') || (kind === 'apikey' && id === 'hash'))
    return null;
  const base: Record<string, (id: string) => string> = {
    device: keys.device,
    project: keys.project,
    user: keys.user,
    apikey: keys.apiKey,
    rule: keys.rule,
    widget: keys.widget,
    notification: keys.notification,
    command: keys.command,
  };
  const renamed = (base[kind] as (id: string) => string)(id);
  return rest === undefined ? renamed : `${renamed}:${rest}`;
}

const OLD_STREAM = /^(outbox|history):[^{]+$/;

/** Every key of a pattern (SCAN, so a large Redis is not blocked). */
async function scanAll(redis: Redis, match: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found;
}

/**
 * Renames every key of the pre-shard scheme on a standalone Redis (RENAMENX: a key already renamed
 * is skipped, so a run that stopped midway is run again), deletes the old outbox and history
 * streams once drained and the rate-limit counters. Throws before changing anything while an old
 * stream still holds entries.
 */
export async function migrateShardKeys(redis: Redis): Promise<{ renamed: number; dropped: number }> {
  for (const key of [...(await scanAll(redis, 'outbox:*')), ...(await scanAll(redis, 'history:*'))].filter((k) => OLD_STREAM.test(k))) {
    const length = await redis.xlen(key);
    if (length > 0) throw new Error(`${key} still holds ${length} entries: start the old version until it is drained, then stop it`);
  }
  let cursor = '0';
  let renamed = 0;
  let dropped = 0;
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    cursor = next;
    for (const key of batch) {
      if (OLD_STREAM.test(key)) {
        await redis.del(key);
        dropped++;
      } else if (/^ratelimit:[^{]+$/.test(key)) {
        await redis.del(key);
        dropped++;
      } else {
        const target = shardKeyName(key);
        if (target !== null && (await redis.renamenx(key, target)) === 1) renamed++;
      }
    }
  } while (cursor !== '0');
  return { renamed, dropped };
}
