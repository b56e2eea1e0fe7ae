import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { relayedStreams } from '../../gateway/outbox/relays';

/** One field of each device's mirror (`device:{id}:state`), in the order of `ids`; null where it is not set. */
export async function mirrorFields(redis: Redis, ids: readonly string[], field: string): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (let i = 0; i < ids.length; i += 5000) {
    const pipeline = redis.pipeline();
    for (const id of ids.slice(i, i + 5000)) pipeline.hget(keys.deviceState(id), field);
    out.push(...((await pipeline.exec()) ?? []).map(([, v]) => (v as string | null) ?? null));
  }
  return out;
}

/** Outbox intents written and not yet carried out, every shard's `outbox` and `outbox-online` together (entries go once carried out). */
export async function outboxLength(redis: Redis, taskQueue: string): Promise<number> {
  const lengths = await Promise.all(relayedStreams(taskQueue).map(({ stream }) => redis.xlen(stream)));
  return lengths.reduce((sum, n) => sum + n, 0);
}
