import { randomUUID } from 'node:crypto';
import { twinWorkflowId } from '../../common/contracts';
import { keys } from '../../common/redis-keys';
import { createTwinClient } from '../../gateway/temporal/twin-client';
import {
  addRule,
  commandSubscriber,
  createDevice,
  createTwinTestEnv,
  eventually,
  keepCommand,
  mirror,
  notificationsOf,
  type TwinTestEnv,
} from './helpers';
import { startWorkerProcess, type WorkerProcess } from './support/worker-process';
import { scanKeys } from '../helpers/scan-keys';

let env: TwinTestEnv;
const children: WorkerProcess[] = [];

beforeAll(async () => {
  env = await createTwinTestEnv('lifecycle', 2);
});

afterAll(async () => {
  for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  await env?.cleanup();
});

/** What the device store's delete does to Redis (the cascade), for the twin's point of view. */
async function deleteDeviceKeys(deviceId: string): Promise<void> {
  await env.redis.del(keys.device(deviceId), keys.deviceState(deviceId), keys.deviceLocks(deviceId), keys.devicePins(deviceId));
}

async function closedStatus(deviceId: string): Promise<string> {
  return (await env.client.workflow.getHandle(twinWorkflowId(deviceId)).describe()).status.name;
}

describe('device twin lifecycle', () => {
  test('deleting the device ends its twin; ending a twin that does not exist is not an error', async () => {
    const device = await createDevice(env.redis);
    await env.twins.start(device.deviceId, device.projectId);
    await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'));

    await deleteDeviceKeys(device.deviceId);
    expect(await env.twins.end(device.deviceId)).toBe(true);
    await eventually(async () => expect(await closedStatus(device.deviceId)).toBe('COMPLETED'));
    const result: unknown = await env.client.workflow.getHandle(twinWorkflowId(device.deviceId)).result();
    expect(result).toMatchObject({ deviceId: device.deviceId, reason: 'ended' });

    expect(await env.twins.end(device.deviceId)).toBe(false); // already ended
    expect(await env.twins.end(randomUUID())).toBe(false); // never existed
    expect(await env.twins.state(randomUUID())).toBeNull();
    expect(await scanKeys(env.redis, `*${device.deviceId}*`)).toEqual([]);
  });

  test('deleting a project ends all of its twins', async () => {
    const first = await createDevice(env.redis);
    const devices = [first, { deviceId: randomUUID(), projectId: first.projectId }, { deviceId: randomUUID(), projectId: first.projectId }];
    for (const d of devices.slice(1)) await env.redis.hset(keys.device(d.deviceId), { id: d.deviceId, projectId: d.projectId });
    await Promise.all(devices.map((d) => env.twins.status(d.deviceId, d.projectId, 'online', new Date().toISOString())));
    await eventually(async () => {
      for (const d of devices) expect((await mirror(env.redis, d.deviceId)).status).toBe('online');
    });

    // The gateway's project delete: the cascade, then every twin of the project is ended.
    for (const d of devices) await deleteDeviceKeys(d.deviceId);
    expect(await Promise.all(devices.map((d) => env.twins.end(d.deviceId)))).toEqual([true, true, true]);
    await eventually(async () => {
      for (const d of devices) expect(await closedStatus(d.deviceId)).toBe('COMPLETED');
    });
    for (const d of devices) expect(await scanKeys(env.redis, `*${d.deviceId}*`)).toEqual([]);
  });

  test('a twin whose device vanished without an end ends itself and writes nothing', async () => {
    const device = await createDevice(env.redis);
    await env.twins.status(device.deviceId, device.projectId, 'online', new Date().toISOString());
    await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('online'));
    await deleteDeviceKeys(device.deviceId);

    // Heartbeat check-back (2 s) finds the device gone; after the grace (5 s) the twin completes.
    await eventually(async () => expect(await closedStatus(device.deviceId)).toBe('COMPLETED'), 15_000, 250);
    const result: unknown = await env.client.workflow.getHandle(twinWorkflowId(device.deviceId)).result();
    expect(result).toMatchObject({ reason: 'device-missing' });
    expect(await scanKeys(env.redis, `*${device.deviceId}*`)).toEqual([]);
  }, 30_000);

  test('killing the worker process mid-way and starting another loses no twin state', async () => {
    const taskQueue = `twin-killed-${randomUUID().slice(0, 8)}`;
    const workerEnv = { TEMPORAL_TASK_QUEUE: taskQueue, DEVICE_HEARTBEAT_TIMEOUT_S: '2', SHUTDOWN_GRACE_MS: '2000' };
    const twins = createTwinClient({ client: env.client, taskQueue, heartbeatTimeoutS: 2 });
    const device = await createDevice(env.redis);
    await addRule(env.redis, device, { condition: 'offline', message: 'gone {value}' });
    const subscriber = await commandSubscriber(env.config, device.deviceId);
    try {
      const first = await startWorkerProcess(workerEnv);
      children.push(first);

      const lock = await twins.lock(device.deviceId, device.projectId, 'V1', 'keypad');
      await keepCommand(env.redis, device.deviceId, 'V5', 'kept');
      await twins.info(device.deviceId, device.projectId, { firmwareVersion: '2.0' });
      await eventually(async () => expect((await mirror(env.redis, device.deviceId)).firmwareVersion).toBe('2.0'));

      first.child.kill('SIGKILL');
      expect(await first.exited).toBeNull(); // killed, not exited

      // While no worker runs, the device comes online: Temporal keeps the signal.
      await twins.status(device.deviceId, device.projectId, 'online', new Date().toISOString());

      const second = await startWorkerProcess(workerEnv);
      children.push(second);

      // The kept command goes out once the twin sees the device online...
      await eventually(
        () =>
          expect(subscriber.messages).toEqual([
            { topic: `${env.config.MQTT_TOPIC_ROOT}/${device.deviceId}/pin/V5/set`, value: 'kept', qos: 1 },
          ]),
        30_000,
        100,
      );
      // ...and its heartbeat still runs: no data within 2 s, offline with a notification.
      await eventually(async () => expect((await mirror(env.redis, device.deviceId)).status).toBe('offline'), 15_000, 100);
      await eventually(async () =>
        expect((await notificationsOf(env.redis, device.projectId)).map((n) => n.message)).toEqual(['gone offline']),
      );
      const state = await twins.state(device.deviceId);
      expect(state).toMatchObject({ status: 'offline', locks: [lock], firmwareVersion: '2.0' });
      expect(await env.redis.hlen(keys.devicePending(device.deviceId))).toBe(0);
      expect(await env.redis.hget(keys.deviceLocks(device.deviceId), 'V1')).toEqual(
        JSON.stringify({ lockedAt: lock.lockedAt, widgetId: 'keypad' }),
      );

      // SIGTERM: a graceful stop.
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      expect(second.output()).toContain('twin worker stopped');
    } finally {
      await subscriber.close();
    }
  }, 90_000);
});
