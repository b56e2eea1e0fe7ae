import { twinWorkflowId } from '../../common/contracts';
import {
  addRule,
  commandSubscriber,
  createDevice,
  createTwinTestEnv,
  deviceMessage,
  eventually,
  keepCommand,
  mirror,
  notificationsOf,
  sleep,
  type TwinTestEnv,
} from './helpers';
import { keys } from '../../common/redis-keys';

let env: TwinTestEnv;

beforeAll(async () => {
  env = await createTwinTestEnv('status', 2);
});

afterAll(async () => {
  await env?.cleanup();
});

describe('device twin: online / offline', () => {
  test('a started twin mirrors the device as offline and answers the state query', async () => {
    const device = await createDevice(env.redis);
    await env.twins.start(device.deviceId, device.projectId);
    await env.twins.start(device.deviceId, device.projectId); // a second start is fine

    await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'));
    const state = await env.twins.state(device.deviceId);
    expect(state).toMatchObject({ deviceId: device.deviceId, projectId: device.projectId, status: 'offline', locks: [] });
    expect((await mirror(env.redis, device.deviceId)).statusChangedAt).toEqual(expect.any(String));
  });

  test('status signals move the twin online and offline, and status rules raise device_status notifications', async () => {
    const device = await createDevice(env.redis);
    const offlineRule = await addRule(env.redis, device, { condition: 'offline', message: 'device went {value}' });
    const onlineRule = await addRule(env.redis, device, { condition: 'online', message: 'back {value}' });

    const onlineAt = new Date().toISOString();
    await env.twins.status(device.deviceId, device.projectId, 'online', onlineAt); // starts the twin
    await eventually(async () => {
      const m = await mirror(env.redis, device.deviceId);
      expect(m).toMatchObject({ status: 'online', statusChangedAt: onlineAt, lastSeen: onlineAt });
    });
    expect((await env.twins.state(device.deviceId))?.status).toBe('online');

    const offlineAt = new Date(Date.now() + 1).toISOString();
    await env.twins.status(device.deviceId, device.projectId, 'offline', offlineAt);
    await eventually(async () => {
      expect(await mirror(env.redis, device.deviceId)).toMatchObject({ status: 'offline', statusChangedAt: offlineAt });
    });

    const records = await eventually(async () => {
      const r = await notificationsOf(env.redis, device.projectId);
      expect(r).toHaveLength(2);
      return r;
    });
    const byRule = Object.fromEntries(records.map((r) => [r.ruleId, r]));
    expect(byRule[onlineRule.id]).toMatchObject({
      type: 'device_status',
      deviceId: device.deviceId,
      projectId: device.projectId,
      title: 'Device online',
      message: 'back online',
      read: false,
      channels: ['inApp'],
    });
    expect(byRule[offlineRule.id]).toMatchObject({ type: 'device_status', title: 'Device offline', message: 'device went offline' });
    expect(await env.redis.zcard(keys.projectNotifications(device.projectId))).toBe(2);

    // A repeated status is not a transition: once the twin has taken it, it has raised nothing more.
    await env.twins.status(device.deviceId, device.projectId, 'offline', new Date().toISOString());
    const after = await eventually(async () => {
      const state = await env.twins.state(device.deviceId);
      expect(state?.stats.signals).toBe(3);
      return state;
    });
    expect(after?.stats.notifications).toBe(2);
    expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(2);
  });

  test('no activity within the heartbeat timeout makes the device offline with a device_status notification', async () => {
    const device = await createDevice(env.redis);
    await addRule(env.redis, device, { condition: 'offline', message: 'Device is {value}' });

    const t0 = new Date();
    await deviceMessage(env.redis, device.deviceId, 'V1', '1', t0);
    await env.twins.activity(device.deviceId, device.projectId, t0.toISOString(), 'V1');
    await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('online'));

    // The device keeps talking through the gateway's hot path only (no signals): the twin stays online.
    for (let i = 0; i < 6; i += 1) {
      await sleep(500);
      await deviceMessage(env.redis, device.deviceId, 'V1', String(i));
    }
    expect((await mirror(env.redis, device.deviceId)).status).toBe('online');
    expect(await notificationsOf(env.redis, device.projectId)).toHaveLength(0);
    const lastMessage = Date.now();

    // Then silence: offline about one heartbeat timeout (2 s) after the last message.
    const offline = await eventually(
      async () => {
        const m = await mirror(env.redis, device.deviceId);
        expect(m.status).toBe('offline');
        return m;
      },
      6000,
      50,
    );
    const offlineAfter = Date.parse(offline.statusChangedAt ?? '') - lastMessage;
    expect(offlineAfter).toBeGreaterThanOrEqual(1900);
    expect(offlineAfter).toBeLessThan(5000);

    const [record] = await eventually(async () => {
      const r = await notificationsOf(env.redis, device.projectId);
      expect(r).toHaveLength(1);
      return r;
    });
    expect(record).toMatchObject({ type: 'device_status', title: 'Device offline', message: 'Device is offline', priority: 'high' });
    expect((await env.twins.state(device.deviceId))?.status).toBe('offline');
  });

  test('activity older than the offline change does not bring the device back; newer activity does', async () => {
    const device = await createDevice(env.redis);
    const onlineAt = new Date().toISOString();
    await env.twins.status(device.deviceId, device.projectId, 'online', onlineAt);
    const offlineAt = new Date(Date.now() + 10).toISOString();
    await env.twins.status(device.deviceId, device.projectId, 'offline', offlineAt);
    await eventually(async () =>
      expect(await mirror(env.redis, device.deviceId)).toMatchObject({ status: 'offline', statusChangedAt: offlineAt }),
    );

    await env.twins.activity(device.deviceId, device.projectId, onlineAt);
    const taken = await eventually(async () => {
      const state = await env.twins.state(device.deviceId);
      expect(state?.stats.signals).toBe(3);
      return state;
    });
    expect(taken?.status).toBe('offline');

    await env.twins.activity(device.deviceId, device.projectId, new Date(Date.now() + 20).toISOString());
    await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('online'));
  });

  test('info updates the mirror; the workflow id follows the contract', async () => {
    const device = await createDevice(env.redis);
    await env.twins.info(device.deviceId, device.projectId, { firmwareVersion: '1.2.3', ipAddress: '10.0.0.7', hardwareType: 'esp32' });
    await eventually(async () =>
      expect(await mirror(env.redis, device.deviceId)).toMatchObject({
        firmwareVersion: '1.2.3',
        ipAddress: '10.0.0.7',
        hardwareType: 'esp32',
      }),
    );
    const description = await env.client.workflow.getHandle(twinWorkflowId(device.deviceId)).describe();
    expect(description.workflowId).toBe(`device-twin:${device.deviceId}`);
    expect(description.status.name).toBe('RUNNING');
  });
});

describe('device twin: kept commands on check-back', () => {
  test('a check-back of an online device delivers a command kept after a failed publish', async () => {
    const device = await createDevice(env.redis);
    const subscriber = await commandSubscriber(env.config, device.deviceId);
    try {
      await env.twins.status(device.deviceId, device.projectId, 'online', new Date().toISOString());
      await eventually(async () => expect((await env.twins.state(device.deviceId))?.status).toBe('online'));
      await sleep(200); // the online transition's own delivery is over: only a check-back can send what is kept now
      await keepCommand(env.redis, device.deviceId, 'V7', 'retry');
      // The device keeps sending, so it stays online across the check-back.
      const sending = setInterval(() => void deviceMessage(env.redis, device.deviceId, 'V0', '1'), 300);
      try {
        await eventually(() => expect(subscriber.messages.map((m) => m.value)).toEqual(['retry']), 8_000);
      } finally {
        clearInterval(sending);
      }
    } finally {
      await subscriber.close();
    }
  });
});
