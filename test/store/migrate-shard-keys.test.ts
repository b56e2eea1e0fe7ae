/**
 * The key migration to the shard scheme (scripts/migrate/, docs/operations.md "Redis Cluster and
 * the Redis key migration"), on a private Redis holding keys of the old scheme.
 */
import { Redis } from 'ioredis';
import { keys } from '../../common/redis-keys';
import { migrateShardKeys, shardKeyName } from '../../scripts/migrate/migrate-shard-keys';
import { ownRedis, stopOwnServers } from '../helpers/own-servers';

const id = '5f0c8d0e-1111-4222-8333-944445555666';
const user = '7a7b7c7d-1111-4222-8333-944445555666';
let redis: Redis;

beforeAll(async () => {
  const server = await ownRedis();
  redis = new Redis(server.env.REDIS_URL as string);
});

afterAll(async () => {
  redis.disconnect();
  await stopOwnServers();
});

test('names each owned key of the old scheme as the stores now read it, and leaves lookups alone', () => {
  expect(shardKeyName(`device:${id}`)).toBe(keys.device(id));
  expect(shardKeyName(`device:${id}:rule-state`)).toBe(keys.deviceRuleState(id));
  expect(shardKeyName(`project:${id}:notifications:unread:${user}`)).toBe(keys.projectMemberUnreadNotifications(id, user));
  expect(shardKeyName(`user:${user}:projects`)).toBe(keys.userProjects(user));
  expect(shardKeyName(`apikey:${id}`)).toBe(keys.apiKey(id));
  expect(shardKeyName(`command:${id}`)).toBe(keys.command(id));
  for (const kept of ['device:dt:abc', 'device:iot:abc', 'user:email:a@b.c', 'apikey:hash:abc', 'session:abc', keys.device(id)]) {
    expect(shardKeyName(kept)).toBeNull();
  }
});

test('refuses while an old stream holds entries; then renames every key, drops the drained streams, and a second run changes nothing', async () => {
  await redis.hset(`device:${id}`, 'projectId', id);
  await redis.hset(`device:${id}:pins`, 'V1', '{"value":"1"}');
  await redis.zadd(`project:${id}:devices`, 1, id);
  await redis.hset(`user:${user}`, 'id', user);
  await redis.set('user:email:a@b.c', user);
  await redis.set('ratelimit:u:m:1', '3');
  await redis.xadd('history:q', '*', 'p', '1 d V1 1');
  await redis.xadd('outbox:q', '*', 'type', 'x', 'payload', '{}');
  await redis.xdel('outbox:q', ...(await redis.xrange('outbox:q', '-', '+')).map(([entryId]) => entryId));

  await expect(migrateShardKeys(redis)).rejects.toThrow('history:q still holds 1 entries');
  // Drained: the persister deleted the entry it wrote to PostgreSQL.
  await redis.xdel('history:q', ...(await redis.xrange('history:q', '-', '+')).map(([entryId]) => entryId));

  expect(await migrateShardKeys(redis)).toEqual({ renamed: 4, dropped: 3 });
  expect(await redis.hget(keys.device(id), 'projectId')).toBe(id);
  expect(await redis.hget(keys.devicePins(id), 'V1')).toBe('{"value":"1"}');
  expect(await redis.zrange(keys.projectDevices(id), '0', '-1')).toEqual([id]);
  expect(await redis.hget(keys.user(user), 'id')).toBe(user);
  expect(await redis.get('user:email:a@b.c')).toBe(user);
  expect((await redis.keys('*')).sort()).toEqual(
    [keys.device(id), keys.devicePins(id), keys.projectDevices(id), keys.user(user), 'user:email:a@b.c'].sort(),
  );
  expect(await migrateShardKeys(redis)).toEqual({ renamed: 0, dropped: 0 });
});
