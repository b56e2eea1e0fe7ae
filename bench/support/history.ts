import type { Redis } from 'ioredis';
import { keys } from '../../common/redis-keys';

/** Sum of ZCARD over the keys, in one pipeline. */
export async function countPoints(redis: Redis, keys: readonly string[]): Promise<number> {
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.zcard(key);
  const replies = (await pipeline.exec()) ?? [];
  return replies.reduce((sum, [err, n]) => sum + (err ? 0 : Number(n)), 0);
}

export interface StoredPoint {
  /** Score: when the writer stored it (epoch ms). */
  storedAt: number;
  /** The member's value part: here the publisher's send time. */
  value: string;
}

/** Every member of history sorted sets whose members are `${ms}:${value}`. */
export async function readPoints(redis: Redis, keys: readonly string[]): Promise<StoredPoint[]> {
  const pipeline = redis.pipeline();
  for (const key of keys) pipeline.zrange(key, '0', '-1');
  const replies = (await pipeline.exec()) ?? [];
  return replies.flatMap(([err, members]) =>
    err
      ? []
      : (members as string[]).map((member) => {
          const sep = member.indexOf(':');
          return { storedAt: Number(member.slice(0, sep)), value: member.slice(sep + 1) };
        }),
  );
}

/** How many of the devices the twins' Redis mirror shows online. */
export async function countOnline(redis: Redis, deviceIds: readonly string[]): Promise<number> {
  const pipeline = redis.pipeline();
  for (const id of deviceIds) pipeline.hget(keys.deviceState(id), 'status');
  const replies = (await pipeline.exec()) ?? [];
  return replies.filter(([err, status]) => !err && status === 'online').length;
}
