import { randomUUID } from 'node:crypto';
import { createRedis, type Redis } from '../../common/redis';
import { keys, streamOf } from '../../common/redis-keys';
import { StoreError } from '../../store/errors';
import { luaScript } from '../../store/lua/load';
import { storePoint } from '../../store/store-point';
import { testConfig } from '../harness/config';

let redis: Redis;

beforeAll(() => {
  redis = createRedis(testConfig(), 'test-lua-loader');
});

afterAll(async () => {
  await redis.quit();
});

const compareAndSet = luaScript('compare-and-set-1');

describe('the Lua script loader', () => {
  it('runs a script Redis does not know yet (NOSCRIPT: sends the body) and again by its SHA', async () => {
    const key = `test:lua:${randomUUID()}`;
    await redis.set(key, 'a');
    await redis.script('FLUSH');
    expect(await compareAndSet(redis, [key], ['a', 'b'])).toBe(1);
    expect(await compareAndSet(redis, [key], ['b', 'c'])).toBe(1);
    expect(await compareAndSet(redis, [key], ['b', 'd'])).toBe(0);
    expect(await redis.get(key)).toBe('c');
    await redis.del(key);
  });

  it("runs a new connection's calls in the order they were issued while Redis learns the script", async () => {
    // Each call moves the key from i to i + 1: one run out of order leaves a step undone.
    const key = `test:lua:${randomUUID()}`;
    await redis.set(key, '0');
    await redis.script('FLUSH');
    const node = createRedis(testConfig(), 'test-lua-loader-order');
    try {
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 300; i++) {
        calls.push(compareAndSet(node, [key], [String(i), String(i + 1)]));
        // One call an iteration: the first replies come back between the calls.
        await new Promise((r) => setImmediate(r));
      }
      expect(await Promise.all(calls)).toEqual(calls.map(() => 1));
      expect(await redis.get(key)).toBe('300');
    } finally {
      await node.quit();
      await redis.del(key);
    }
  });

  it('refuses a call with another number of keys than the file name says, before reaching Redis', async () => {
    await expect(compareAndSet(redis, ['one', 'two'], ['a', 'b'])).rejects.toThrow('takes 1 keys, got 2');
  });

  it('refuses a script name without its key count', () => {
    expect(() => luaScript('compare-and-set')).toThrow('must end in its key count or -n');
  });

  it("turns a script's STORE:CODE refusal into a StoreError, having written nothing", async () => {
    const deviceId = randomUUID();
    const write = storePoint(redis, {
      deviceId,
      pin: 'V1',
      value: '1',
      at: new Date(),
      historyStream: keys.historyStream(deviceId),
      historyStreamMax: 1_000_000,
      towardDevice: false,
      fromDevice: true,
      wakeTtlS: 5,
      ruleStates: [],
      outbox: keys.outbox('no-rules'),
    });
    await expect(write).rejects.toEqual(new StoreError('DEVICE_GONE'));
    await expect(write).rejects.toMatchObject({ code: 'DEVICE_GONE' });
    expect(await redis.exists(keys.devicePins(deviceId), keys.deviceState(deviceId))).toBe(0);
    expect(await redis.exists(streamOf(keys.historyStream(deviceId), deviceId))).toBe(0);
  });
});
