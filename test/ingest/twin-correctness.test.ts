/**
 * What the device and its twin end up with when values from apps, the device and imports meet
 * (issue 12, item 7): the newest write wins over a kept command; apps' writes are not the
 * device's data; an info message is activity; an imported past reading fires no rule.
 */
import type mqtt from 'mqtt';
import { connectAsDevice, createDevice, createProject, mirrorStatus, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let projectId: string;
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await stack.stop();
});

const root = () => stack.config.MQTT_TOPIC_ROOT;

async function connectAs(device: { id: string; token: string }): Promise<mqtt.MqttClient> {
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  clients.push(client);
  return client;
}

async function appWrite(deviceId: string, pin: number, value: string, timestamp?: string): Promise<{ delivered: boolean }> {
  const res = await stack.request('POST', `/api/v1/data/${deviceId}/${pin}`, {
    token: owner.token,
    body: timestamp ? { value, timestamp } : { value },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function notificationsOf(deviceId: string, type: string): Promise<Array<{ message: string }>> {
  const res = await stack.request('GET', `/api/v1/notifications?projectId=${projectId}&deviceId=${deviceId}&type=${type}&limit=100`, {
    token: owner.token,
  });
  expect(res.status).toBe(200);
  return res.body.data.notifications;
}

async function addRule(body: Record<string, unknown>): Promise<void> {
  const res = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, message: 'value {value}', channels: ['inApp'], ...body },
  });
  expect(res.status).toBe(201);
}

test('a command kept while offline never reaches the device after a newer value written directly', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  // The twin has started and mirrored the new device as offline.
  await eventually(async () => expect(await stack.redis.hget(keys.deviceState(device.id), 'status')).toBe('offline'));
  const client = await connectAs(device);
  const received: Array<{ pin: string; value: string }> = [];
  client.on('message', (topic, payload) => received.push({ pin: topic.split('/')[3] ?? '', value: payload.toString() }));
  await client.subscribeAsync(`${root()}/${device.id}/pin/+/set`, { qos: 1 });

  expect(await appWrite(device.id, 5, 'old')).toEqual(expect.objectContaining({ delivered: false }));
  // A second kept command, sent after V5 by the flush: once it arrives, the flush is over.
  await stack.request('POST', `/api/v1/data/${device.id}/bulk`, { token: owner.token, body: { readings: [{ pin: 9, value: 'marker' }] } });
  // The mirror already says online (as the gateway may see it a moment before the twin acts):
  // the newer write goes to the device directly.
  await mirrorStatus(stack.redis, device.id, 'online');
  expect(await appWrite(device.id, 5, 'new')).toEqual(expect.objectContaining({ delivered: true }));

  // Now the twin learns the device is online and flushes what it kept (oldest first: V5, then V9).
  await client.publishAsync(`${root()}/${device.id}/status`, 'online', { qos: 1 });
  await eventually(() => expect(received.map((m) => m.pin)).toContain('V9'), 15_000);
  expect(received.filter((m) => m.pin === 'V5').map((m) => m.value)).toEqual(['new']);
});

test("values written by apps are not the device's data: a no_data rule still fires", async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await addRule({ deviceId: device.id, pin: 3, condition: 'no_data', duration: 1 });
  const client = await connectAs(device);
  await client.publishAsync(`${root()}/${device.id}/pin/V3`, '21.5', { qos: 1 });

  let writing = true;
  const writes = (async () => {
    for (let i = 0; writing; i += 1) {
      await appWrite(device.id, 3, `set-${i}`);
      await sleep(200);
    }
  })();
  try {
    await eventually(async () => expect(await notificationsOf(device.id, 'no_data')).toHaveLength(1), 8_000, 200);
  } finally {
    writing = false;
    await writes;
  }
  const status = await stack.request('GET', `/api/v1/devices/${device.id}/status`, { token: owner.token });
  expect(Date.parse(status.body.data.lastSeen)).toBeLessThan(Date.now() - 1000);
});

test('an info message is activity: it brings the device online', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const client = await connectAs(device);
  await client.publishAsync(`${root()}/${device.id}/info`, JSON.stringify({ firmwareVersion: '2.0.1' }), { qos: 1 });
  await eventually(async () => {
    const status = await stack.request('GET', `/api/v1/devices/${device.id}/status`, { token: owner.token });
    expect(status.body.data).toEqual(expect.objectContaining({ status: 'online', firmwareVersion: '2.0.1' }));
  }, 10_000);
});

test('an imported past reading fires no threshold rule and leaves the live edge alone', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await addRule({ deviceId: device.id, pin: 1, condition: 'gt', threshold: 50 });
  await appWrite(device.id, 1, '90', new Date(Date.now() - 3_600_000).toISOString());
  const client = await connectAs(device);
  await client.publishAsync(`${root()}/${device.id}/pin/V1`, '20', { qos: 1 });
  await client.publishAsync(`${root()}/${device.id}/pin/V1`, '80', { qos: 1 });
  const fired = await eventually(async () => {
    const list = await notificationsOf(device.id, 'threshold');
    expect(list.map((n) => n.message)).toContain('value 80');
    return list;
  }, 10_000);
  expect(fired.map((n) => n.message)).toEqual(['value 80']);
});

test("a rule's threshold notification for a device comes at most once a minute, however often the value crosses", async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await addRule({ deviceId: device.id, pin: 2, condition: 'gt', threshold: 50 });
  const client = await connectAs(device);
  for (const value of ['80', '10', '81', '11', '82']) await client.publishAsync(`${root()}/${device.id}/pin/V2`, value, { qos: 1 });
  // The last crossing is stored (and judged) once its value is the latest.
  await eventually(async () => {
    const latest = await stack.request('GET', `/api/v1/data/${device.id}/2/latest`, { token: owner.token });
    expect(latest.body.data?.value).toBe('82');
  }, 10_000);
  await sleep(1500);
  const fired = await notificationsOf(device.id, 'threshold');
  expect(fired.map((n) => n.message)).toEqual(['value 80']);
});
