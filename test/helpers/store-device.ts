import { randomUUID } from 'node:crypto';
import { createRedis, type Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { testConfig } from '../harness/config';

/** A connection to the run's Redis for one test file: opened before its tests, closed after them. */
export function fileRedis(name: string): () => Redis {
  let redis: Redis | null = null;
  beforeAll(() => {
    redis = createRedis(testConfig(), name);
  });
  afterAll(async () => {
    await redis?.quit();
  });
  return () => {
    if (redis === null) throw new Error('the Redis connection opens before the tests');
    return redis;
  };
}

/** A device as the store step sees it: its hash, with a project id. */
export async function storeDevice(redis: Redis): Promise<string> {
  const deviceId = randomUUID();
  await redis.hset(keys.device(deviceId), 'projectId', randomUUID());
  return deviceId;
}
