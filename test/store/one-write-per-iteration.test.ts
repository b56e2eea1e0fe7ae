/**
 * A connection's commands of one event-loop iteration leave in one socket write (common/redis.ts,
 * common/cork.ts), in the order they were issued, against a real Redis: counted at the socket's
 * handle, where each write call the process makes passes.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Redis as RedisClient } from 'ioredis';
import { createRedis, type Redis } from '../../common/redis';
import { testConfig } from '../harness/config';
import { countSocketWrites } from '../helpers/socket-writes';

let redis: Redis;

beforeAll(async () => {
  redis = createRedis(testConfig(), 'test-one-write-per-iteration');
  await redis.ping();
});

afterAll(() => redis.quit());

const countWrites = (): (() => number) => countSocketWrites((redis as RedisClient).stream as Socket);

test("an iteration's commands leave in one write, in order, and the next iteration's in another", async () => {
  const key = `test-one-write:${randomUUID()}`;
  const writes = countWrites();
  const first = Promise.all(Array.from({ length: 50 }, (_, i) => redis.rpush(key, `a${i}`)));
  await first;
  expect(writes()).toBe(1);
  await Promise.all(Array.from({ length: 50 }, (_, i) => redis.rpush(key, `b${i}`)));
  expect(writes()).toBe(2);
  const stored = await redis.lrange(key, 0, -1);
  expect(stored).toEqual([...Array.from({ length: 50 }, (_, i) => `a${i}`), ...Array.from({ length: 50 }, (_, i) => `b${i}`)]);
  await redis.del(key);
});

test('commands issued by separate callbacks of one iteration share one write', async () => {
  const key = `test-one-write:${randomUUID()}`;
  const writes = countWrites();
  // Two immediates queued together run in one check phase, each a callback of its own (as two HTTP
  // requests read in one poll phase are). Not two timers: on a loaded machine two 1 ms timers made a
  // millisecond apart can fall in two iterations, and the test then failed with the product right.
  const pushed = await new Promise<number[]>((resolve, reject) => {
    const replies: Promise<number>[] = [];
    setImmediate(() => replies.push(redis.rpush(key, 'first')));
    setImmediate(() => {
      replies.push(redis.rpush(key, 'second'));
      Promise.all(replies).then(resolve, reject);
    });
  });
  expect(pushed).toEqual([1, 2]);
  expect(writes()).toBe(1);
  await redis.del(key);
});
