/**
 * Status without flapping (issue 17, item 2) on the real servers: forSeconds on offline/online
 * rules, and the disconnect reason (Last Will, status message, heartbeat timeout) on the device
 * and in `device:status`.
 */
import type mqtt from 'mqtt';
import type { DeviceStatusEvent } from '../../common/contracts';
import { LAST_WILL_PROPERTY } from '../../common/mqtt-topics';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { collect, subscribedSocket, type ClientSocket } from '../helpers/socket';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';

const TIMEOUT_S = 3;
let stack: Stack;
let owner: TestUser;
let projectId: string;
let socket: ClientSocket;
let statuses: DeviceStatusEvent[];
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: true, overrides: { DEVICE_HEARTBEAT_TIMEOUT_S: String(TIMEOUT_S) } });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
  socket = await subscribedSocket(stack.baseUrl, owner.token, { projectId });
  statuses = collect(socket, 'device:status');
}, 60_000);

afterAll(async () => {
  socket.close();
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await stack.stop();
});

const statusTopic = (deviceId: string) => `${stack.config.MQTT_TOPIC_ROOT}/${deviceId}/status`;

async function connect(device: { id: string; token: string }, will = false): Promise<mqtt.MqttClient> {
  const client = await connectAsDevice(
    stack.config.MQTT_URL,
    device,
    will
      ? {
          will: {
            topic: statusTopic(device.id),
            payload: Buffer.from('offline'),
            qos: 1,
            retain: false,
            properties: { userProperties: { [LAST_WILL_PROPERTY.name]: LAST_WILL_PROPERTY.value } },
          },
        }
      : {},
  );
  clients.push(client);
  return client;
}

async function deviceView(deviceId: string): Promise<{ status: string; disconnectReason: string | null; lastSeen: string | null }> {
  const res = await stack.request('GET', `/api/v1/devices/${deviceId}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data;
}

async function statusNotifications(deviceId: string): Promise<string[]> {
  const res = await stack.request('GET', `/api/v1/notifications?projectId=${projectId}&deviceId=${deviceId}&type=device_status`, {
    token: owner.token,
  });
  return (res.body.data.notifications as Array<{ title: string }>).map((n) => n.title);
}

test('the disconnect reason: a Last Will, a status message, a heartbeat timeout noticed within 1 s', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const willing = await connect(device, true);
  await willing.publishAsync(statusTopic(device.id), 'online', { qos: 1 });
  await eventually(async () => expect((await deviceView(device.id)).status).toBe('online'));
  willing.stream.destroy(); // the connection drops: the broker publishes the Last Will
  await eventually(
    async () => expect(await deviceView(device.id)).toMatchObject({ status: 'offline', disconnectReason: 'last will' }),
    15_000,
  );
  expect(statuses.filter((e) => e.deviceId === device.id).at(-1)).toMatchObject({ status: 'offline', reason: 'last will' });

  const polite = await connect(device);
  await polite.publishAsync(statusTopic(device.id), 'online', { qos: 1 });
  await eventually(async () => expect(await deviceView(device.id)).toMatchObject({ status: 'online', disconnectReason: null }));
  await polite.publishAsync(statusTopic(device.id), 'offline', { qos: 1 });
  await eventually(async () =>
    expect(await deviceView(device.id)).toMatchObject({ status: 'offline', disconnectReason: 'status message' }),
  );

  // Online again, then silent: offline by timeout, no more than 1 s after lastSeen + timeout.
  await polite.publishAsync(statusTopic(device.id), 'online', { qos: 1 });
  await eventually(async () => expect((await deviceView(device.id)).status).toBe('online'));
  const timedOut = await eventually(() => {
    const event = statuses.find((e) => e.deviceId === device.id && e.reason === 'timeout');
    expect(event).toBeDefined();
    return { event: event!, seenAt: Date.now() };
  }, 15_000);
  const { lastSeen } = await deviceView(device.id);
  expect(timedOut.event).toMatchObject({ status: 'offline', reason: 'timeout' });
  expect(timedOut.seenAt - (Date.parse(lastSeen!) + TIMEOUT_S * 1000)).toBeLessThanOrEqual(1_000);
  expect((await deviceView(device.id)).disconnectReason).toBe('timeout');
}, 60_000);

test('forSeconds on an offline rule: a short drop notifies nobody, a long one notifies once', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const rule = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, deviceId: device.id, condition: 'offline', forSeconds: 2, message: 'gone {value}' },
  });
  expect(rule.status).toBe(201);
  const client = await connect(device);
  const say = (status: string) => client.publishAsync(statusTopic(device.id), status, { qos: 1 });
  await say('online');
  await eventually(async () => expect((await deviceView(device.id)).status).toBe('online'));
  await say('offline');
  await eventually(async () => expect((await deviceView(device.id)).status).toBe('offline'));
  await say('online');
  await eventually(async () => expect((await deviceView(device.id)).status).toBe('online'));
  await sleep(2_500);
  expect(await statusNotifications(device.id)).toEqual([]);

  const droppedAt = Date.now();
  await say('offline');
  await eventually(async () => expect(await statusNotifications(device.id)).toEqual(['Device offline']), 10_000);
  expect(Date.now() - droppedAt).toBeGreaterThanOrEqual(2_000);
}, 60_000);
