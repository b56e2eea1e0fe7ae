/**
 * Commands with a receipt (issue 17, item 3) on the real servers: queued → sent → acknowledged
 * for an offline device that comes back and echoes, an explicit ack topic, TTL expiry (never
 * sent), superseding, and the command id in every write's answer.
 */
import type mqtt from 'mqtt';
import type { Command } from '../../common/contracts';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { collect, emitWithAck, subscribedSocket, type ClientSocket } from '../helpers/socket';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let stranger: TestUser;
let projectId: string;
let socket: ClientSocket;
let events: Command[];
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: true });
  [owner, stranger] = await Promise.all([registerUser(stack.request), registerUser(stack.request)]);
  projectId = (await createProject(stack.request, owner)).id;
  socket = await subscribedSocket(stack.baseUrl, owner.token, { projectId });
  events = collect(socket, 'command');
}, 60_000);

afterAll(async () => {
  socket.close();
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await stack.stop();
});

const root = () => stack.config.MQTT_TOPIC_ROOT;

/** The device, connected and listening for its commands; `received` collects them. */
async function deviceClient(device: { id: string; token: string }) {
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  clients.push(client);
  const received: Array<{ pin: string; value: string }> = [];
  client.on('message', (topic, payload) => received.push({ pin: topic.split('/')[3] ?? '', value: payload.toString() }));
  await client.subscribeAsync(`${root()}/${device.id}/pin/+/set`, { qos: 1 });
  return { client, received };
}

async function write(deviceId: string, pin: number, value: string): Promise<{ commandId: string; delivered: boolean }> {
  const res = await stack.request('POST', `/api/v1/data/${deviceId}/${pin}`, { token: owner.token, body: { value } });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function command(id: string): Promise<Command> {
  const res = await stack.request('GET', `/api/v1/commands/${id}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data;
}

const statesOf = (id: string) => events.filter((e) => e.id === id).map((e) => e.state);

test('an offline device: queued, then sent when it comes back, then acknowledged when it echoes', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const written = await write(device.id, 4, '42');
  expect(written).toMatchObject({ delivered: false, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  expect(await command(written.commandId)).toMatchObject({
    id: written.commandId,
    deviceId: device.id,
    pin: 'V4',
    value: '42',
    state: 'queued',
    sentAt: null,
    acknowledgedAt: null,
    expiresAt: null,
  });

  const { client, received } = await deviceClient(device);
  await client.publishAsync(`${root()}/${device.id}/status`, 'online', { qos: 1 });
  await eventually(() => expect(received).toEqual([{ pin: 'V4', value: '42' }]), 15_000);
  await eventually(async () => expect(await command(written.commandId)).toMatchObject({ state: 'sent', sentAt: expect.any(String) }));
  await client.publishAsync(`${root()}/${device.id}/pin/V4`, '42', { qos: 1 });
  await eventually(async () =>
    expect(await command(written.commandId)).toMatchObject({ state: 'acknowledged', acknowledgedAt: expect.any(String) }),
  );
  await eventually(() => expect(statesOf(written.commandId)).toEqual(['queued', 'sent', 'acknowledged']));

  const list = await stack.request('GET', `/api/v1/devices/${device.id}/commands?limit=5`, { token: owner.token });
  expect(list.body.data.commands.map((c: Command) => c.id)).toEqual([written.commandId]);
}, 40_000);

test('an online device acknowledges on its ack topic; a value that differs acknowledges nothing', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const { client, received } = await deviceClient(device);
  await client.publishAsync(`${root()}/${device.id}/status`, 'online', { qos: 1 });
  await eventually(async () => expect(await stack.redis.hget(keys.deviceState(device.id), 'status')).toBe('online'));
  const written = await write(device.id, 7, 'on');
  expect(written.delivered).toBe(true);
  await eventually(() => expect(received).toContainEqual({ pin: 'V7', value: 'on' }));
  await client.publishAsync(`${root()}/${device.id}/pin/V7`, 'off', { qos: 1 });
  await sleep(300);
  expect((await command(written.commandId)).state).toBe('sent');
  await client.publishAsync(`${root()}/${device.id}/ack`, written.commandId, { qos: 1 });
  await eventually(async () => expect((await command(written.commandId)).state).toBe('acknowledged'));
}, 30_000);

test('a sent command not yet acknowledged is superseded when a newer one on its pin is sent; the newer one is acknowledged', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const { client, received } = await deviceClient(device);
  await client.publishAsync(`${root()}/${device.id}/status`, 'online', { qos: 1 });
  await eventually(async () => expect(await stack.redis.hget(keys.deviceState(device.id), 'status')).toBe('online'));
  const first = await write(device.id, 8, '10');
  await eventually(async () => expect((await command(first.commandId)).state).toBe('sent'));
  const second = await write(device.id, 8, '20');
  await eventually(() => expect(received).toContainEqual({ pin: 'V8', value: '20' }));
  await eventually(async () => expect((await command(first.commandId)).state).toBe('superseded'));
  await eventually(() => expect(statesOf(first.commandId)).toEqual(['queued', 'sent', 'superseded']));
  // The older value's late echo acknowledges nothing; the newer one's echo acknowledges it.
  await client.publishAsync(`${root()}/${device.id}/pin/V8`, '10', { qos: 1 });
  await client.publishAsync(`${root()}/${device.id}/pin/V8`, '20', { qos: 1 });
  await eventually(async () => expect((await command(second.commandId)).state).toBe('acknowledged'));
  expect((await command(first.commandId)).state).toBe('superseded');
}, 30_000);

test('a command with a TTL expires unsent; a newer write supersedes a queued one', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const ttl = await emitWithAck<{ success: boolean; commandId: string; delivered: boolean }>(socket, 'pin:write', {
    deviceId: device.id,
    pin: 'V2',
    value: 'soon stale',
    ttlSeconds: 1,
  });
  expect(ttl).toMatchObject({ success: true, delivered: false, commandId: expect.any(String) });
  const first = await write(device.id, 3, 'first');
  const second = await write(device.id, 3, 'second');
  await eventually(async () => expect((await command(first.commandId)).state).toBe('superseded'));
  await eventually(async () => expect((await command(ttl.commandId)).state).toBe('expired'), 5_000);

  const { client, received } = await deviceClient(device);
  await client.publishAsync(`${root()}/${device.id}/status`, 'online', { qos: 1 });
  await eventually(async () => expect((await command(second.commandId)).state).toBe('sent'), 15_000);
  expect(received).toEqual([{ pin: 'V3', value: 'second' }]);
  expect((await command(ttl.commandId)).state).toBe('expired');
  await eventually(() => expect(statesOf(ttl.commandId)).toEqual(['queued', 'expired']));
}, 40_000);

test('every app write answers its command id; unknown and foreign ids are 404', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const bulk = await stack.request('POST', `/api/v1/data/${device.id}/bulk`, {
    token: owner.token,
    body: {
      readings: [
        { pin: 1, value: 'a' },
        { pin: 2, value: 'b', timestamp: new Date(Date.now() - 60_000).toISOString() },
      ],
    },
  });
  expect(bulk.body.data.results).toEqual([
    expect.objectContaining({ pin: 1, commandId: expect.any(String) }),
    expect.objectContaining({ pin: 2, commandId: null }), // an import is history, not a command
  ]);

  const written = await write(device.id, 1, 'x');
  for (const [token, id] of [
    [stranger.token, written.commandId],
    [owner.token, '00000000-0000-4000-8000-000000000000'],
    [owner.token, 'nope'],
  ] as const) {
    const res = await stack.request('GET', `/api/v1/commands/${id}`, { token });
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 404, code: 'COMMAND_NOT_FOUND' });
  }
  expect((await stack.request('GET', `/api/v1/devices/${device.id}/commands`, { token: stranger.token })).status).toBe(404);
});
