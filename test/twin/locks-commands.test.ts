import { keys } from '../../common/redis-keys';
import { commandSubscriber, createDevice, createTwinTestEnv, eventually, keepCommand, mirror, type TwinTestEnv } from './helpers';

let env: TwinTestEnv;

beforeAll(async () => {
  env = await createTwinTestEnv('locks', 30);
});

afterAll(async () => {
  await env?.cleanup();
});

describe('device twin: pin locks', () => {
  test('lock and unlock through Updates keep the mirror the gateway reads', async () => {
    const device = await createDevice(env.redis);

    const lock = await env.twins.lock(device.deviceId, device.projectId, 'v7', 'widget-1'); // starts the twin
    expect(lock).toEqual({ pin: 'V7', lockedAt: expect.any(String), widgetId: 'widget-1' });
    expect(JSON.parse((await env.redis.hget(keys.deviceLocks(device.deviceId), 'V7')) ?? 'null')).toEqual({
      lockedAt: lock.lockedAt,
      widgetId: 'widget-1',
    });

    // Locking again returns the lock that is there.
    expect(await env.twins.lock(device.deviceId, device.projectId, 'V7', null)).toEqual(lock);
    const user = await env.twins.lock(device.deviceId, device.projectId, 'D3', null);
    expect(user.widgetId).toBeNull();
    expect((await env.twins.state(device.deviceId))?.locks).toEqual([lock, user]);

    // Another widget cannot release it; its own widget, or a release without widget, can.
    expect(await env.twins.unlock(device.deviceId, device.projectId, 'V7', 'widget-2')).toEqual({ released: false });
    expect(await env.redis.hexists(keys.deviceLocks(device.deviceId), 'V7')).toBe(1);
    expect(await env.twins.unlock(device.deviceId, device.projectId, 'V7', 'widget-1')).toEqual({ released: true });
    expect(await env.twins.unlock(device.deviceId, device.projectId, 'D3')).toEqual({ released: true });
    expect(await env.twins.unlock(device.deviceId, device.projectId, 'D3')).toEqual({ released: false });
    expect(await env.redis.hgetall(keys.deviceLocks(device.deviceId))).toEqual({});
    expect((await env.twins.state(device.deviceId))?.locks).toEqual([]);
  });

  test('the validator rejects malformed pins before they touch state', async () => {
    const device = await createDevice(env.redis);
    for (const pin of ['V256', 'D100', 'A16', 'X1', '', 'V1/set']) {
      await expect(env.twins.lock(device.deviceId, device.projectId, pin, null)).rejects.toMatchObject({
        code: 'INVALID_PIN',
      });
    }
    expect((await env.twins.state(device.deviceId))?.locks).toEqual([]);
    expect(await env.redis.exists(keys.deviceLocks(device.deviceId))).toBe(0);
  });
});

describe('device twin: commands', () => {
  test('commands kept while offline (newest per pin) are delivered when the device comes online', async () => {
    const device = await createDevice(env.redis);
    const subscriber = await commandSubscriber(env.config, device.deviceId);
    try {
      await keepCommand(env.redis, device.deviceId, 'V5', 'first');
      await keepCommand(env.redis, device.deviceId, 'V5', 'newest');
      await keepCommand(env.redis, device.deviceId, 'D1', '1');
      await env.twins.start(device.deviceId, device.projectId);
      // Started and offline: it keeps both commands and sends nothing.
      await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'));
      expect((await env.twins.state(device.deviceId))?.stats.commandsDelivered).toBe(0);
      expect(await env.redis.hlen(keys.devicePending(device.deviceId))).toBe(2);
      expect(subscriber.messages).toEqual([]);

      await env.twins.status(device.deviceId, device.projectId, 'online', new Date().toISOString());
      await eventually(() => expect(subscriber.messages).toHaveLength(2));
      const root = env.config.MQTT_TOPIC_ROOT;
      expect(subscriber.messages).toEqual(
        expect.arrayContaining([
          { topic: `${root}/${device.deviceId}/pin/V5/set`, value: 'newest', qos: 1 },
          { topic: `${root}/${device.deviceId}/pin/D1/set`, value: '1', qos: 1 },
        ]),
      );
      await eventually(async () => expect(await env.redis.hlen(keys.devicePending(device.deviceId))).toBe(0));
      expect((await mirror(env.redis, device.deviceId)).status).toBe('online');
      expect((await env.twins.state(device.deviceId))?.stats.commandsDelivered).toBe(2);
    } finally {
      await subscriber.close();
    }
  });

  test('locking a pin drops the command kept for it', async () => {
    const device = await createDevice(env.redis);
    await keepCommand(env.redis, device.deviceId, 'V2', 'queued');
    await keepCommand(env.redis, device.deviceId, 'V3', 'other');
    await env.twins.lock(device.deviceId, device.projectId, 'V2', 'keypad');
    expect(await env.redis.hkeys(keys.devicePending(device.deviceId))).toEqual(['V3']);
  });
});
