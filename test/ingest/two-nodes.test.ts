import type mqtt from 'mqtt';
import { startStack, type Stack } from '../helpers/stack';
import { connectAsDevice, createDevice, createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { connectSocket, emitWithAck, nextEvent, type ClientSocket } from '../helpers/socket';
import { eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let projectId: string;
const sockets: ClientSocket[] = [];
const devices: mqtt.MqttClient[] = [];

beforeAll(async () => {
  // Every crossing notifies here (not once a minute: test/ingest/twin-correctness.test.ts), so the edges show.
  stack = await startStack({ nodes: 2, worker: true, overrides: { THRESHOLD_NOTIFY_INTERVAL_S: '0' } });
  owner = await registerUser(stack.request);
  // A device per test: more than the free plan's quota of 10 (docs/limits.md).
  await setPlan(stack.request, owner, 'pro');
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.close();
  await Promise.all(devices.map((d) => d.endAsync()));
  await stack.stop();
});

async function deviceClient(deviceId: string, password: string): Promise<mqtt.MqttClient> {
  const client = await connectAsDevice(stack.config.MQTT_URL, { id: deviceId, token: password }, { connectTimeout: 3000 });
  devices.push(client);
  return client;
}

async function socketOn(nodeIndex: number, target: { projectId: string } | { deviceId: string }): Promise<ClientSocket> {
  const socket = await connectSocket(stack.nodes[nodeIndex]!.baseUrl, owner.token);
  sockets.push(socket);
  const ack = await emitWithAck<{ success: boolean }>(socket, 'subscribe', target);
  expect(ack).toMatchObject({ success: true, seq: expect.any(Object) });
  return socket;
}

async function messagesHandled(): Promise<number> {
  const all = await Promise.all(stack.nodes.map((n) => n.metrics()));
  return all.reduce((sum, m) => sum + (m.dds_mqtt_messages_total ?? 0), 0);
}

async function valuesDropped(): Promise<number> {
  const all = await Promise.all(stack.nodes.map((n) => n.metrics()));
  return all.reduce((sum, m) => sum + (m.dds_mqtt_values_dropped_total ?? 0), 0);
}

const root = () => stack.config.MQTT_TOPIC_ROOT;

describe('MQTT value → storage → Socket.IO on the other node', () => {
  it('stores a published value with its history point and pushes pin:update to a client on the other node, once', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const socket = await socketOn(1, { deviceId: device.id });
    const update = nextEvent(socket, 'pin:update', (e) => e.deviceId === device.id);
    const before = await messagesHandled();

    const client = await deviceClient(device.id, device.token);
    await client.publishAsync(`${root()}/${device.id}/pin/V1`, '21.5', { qos: 1 });

    expect(await update).toEqual({ deviceId: device.id, pin: 'V1', value: '21.5', updatedAt: expect.any(String), seq: expect.any(Number) });
    const latest = JSON.parse((await stack.redis.hget(keys.devicePins(device.id), 'V1')) as string);
    expect(latest.value).toBe('21.5');
    expect(await stack.history(device.id, 'V1')).toHaveLength(1);
    // A marker published after it on the same connection: once it is handled, a second handling of
    // V1 (by the other node) would have been counted too.
    const marker = nextEvent(socket, 'pin:update', (e) => e.deviceId === device.id && e.pin === 'V2');
    await client.publishAsync(`${root()}/${device.id}/pin/V2`, 'marker', { qos: 1 });
    const markerUpdate = await marker;
    await eventually(async () => expect((await messagesHandled()) - before).toBeGreaterThanOrEqual(2));
    expect((await messagesHandled()) - before).toBe(2);
    expect(await stack.history(device.id, 'V1')).toHaveLength(1);

    const read = await stack.nodes[1]!.request('GET', `/api/v1/devices/${device.id}`, { token: owner.token });
    expect(read.body.data.lastSeen).toBe(markerUpdate.updatedAt);
  });

  it('brings an offline device online through its twin on its first message', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const socket = await socketOn(0, { projectId });
    const status = nextEvent(socket, 'device:status', (e) => e.deviceId === device.id && e.status === 'online', 10_000);
    const client = await deviceClient(device.id, device.token);
    await client.publishAsync(`${root()}/${device.id}/pin/V0`, '1', { qos: 1 });
    await status;
    const res = await stack.request('GET', `/api/v1/devices/${device.id}/status`, { token: owner.token });
    expect(res.body.data.status).toBe('online');
  });
});

describe('oversized values, per path', () => {
  it('drops an oversized MQTT value silently: nothing stored, counted', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const client = await deviceClient(device.id, device.token);
    const dropped = await valuesDropped();
    await client.publishAsync(`${root()}/${device.id}/pin/D1`, '12345678901234567', { qos: 1 });
    await eventually(async () => expect(await valuesDropped()).toBe(dropped + 1));
    expect(await stack.redis.hget(keys.devicePins(device.id), 'D1')).toBeNull();
    expect(await stack.history(device.id, 'D1')).toEqual([]);
  });

  it('answers an oversized pin:write with an error event and a failed ack', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const socket = await socketOn(0, { deviceId: device.id });
    const error = nextEvent(socket, 'error');
    const ack = await emitWithAck(socket, 'pin:write', { deviceId: device.id, pin: 'V3', value: 'x'.repeat(1025) });
    expect(ack).toEqual({ success: false, error: { code: 'VALUE_TOO_LARGE', message: expect.any(String) } });
    expect(await error).toEqual({ code: 'VALUE_TOO_LARGE', message: expect.any(String) });
    expect(await stack.redis.hget(keys.devicePins(device.id), 'V3')).toBeNull();
  });

  it('counts bytes, not characters: 1024 bytes of multi-byte UTF-8 pass, 1026 fail with 400 VALUE_TOO_LARGE', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const fits = `${'€'.repeat(341)}a`;
    const tooLarge = '€'.repeat(342);
    expect(tooLarge.length).toBeLessThan(1024);

    const ok = await stack.request('POST', `/api/v1/data/${device.id}/5`, { token: owner.token, body: { value: fits } });
    expect(ok.status).toBe(201);
    expect(ok.body.data).toEqual({
      deviceId: device.id,
      pin: 5,
      value: fits,
      timestamp: expect.any(String),
      delivered: false,
      commandId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const bad = await stack.request('POST', `/api/v1/data/${device.id}/6`, { token: owner.token, body: { value: tooLarge } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ success: false, error: { code: 'VALUE_TOO_LARGE', message: expect.any(String) } });
    expect(await stack.redis.hget(keys.devicePins(device.id), 'V6')).toBeNull();
  });

  it('rejects a whole bulk write when one value is too large, writing nothing', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const res = await stack.request('POST', `/api/v1/data/${device.id}/bulk`, {
      token: owner.token,
      body: {
        readings: [
          { pin: 1, value: 'ok' },
          { pin: 2, value: 'y'.repeat(1025) },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALUE_TOO_LARGE');
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(0);

    const good = await stack.request('POST', `/api/v1/data/${device.id}/bulk`, {
      token: owner.token,
      body: {
        readings: [
          { pin: 1, value: '1' },
          { pin: 2, value: '2', timestamp: '2026-01-01T00:00:00.000Z' },
        ],
      },
    });
    expect(good.status).toBe(200);
    expect(good.body.data.written).toBe(2);
    expect(good.body.data.results).toEqual([
      { pin: 1, stored: true, delivered: false, timestamp: expect.any(String), commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      { pin: 2, stored: true, delivered: false, timestamp: '2026-01-01T00:00:00.000Z', commandId: null },
    ]);
  });
});

describe('threshold rules', () => {
  it('fire on the crossing into the condition, not again while inside, and again after leaving and re-entering', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const rule = await stack.request('POST', '/api/v1/notifications/rules', {
      token: owner.token,
      body: { projectId, deviceId: device.id, pin: 7, condition: 'gt', threshold: 20, message: 'Too hot: {value}', channels: ['inApp'] },
    });
    expect(rule.status).toBe(201);
    const socket = await socketOn(1, { projectId });
    const notifications: { message: string }[] = [];
    socket.on('notification', (n) => notifications.push(n));

    for (const value of ['10', '25', '30', '15', '26']) {
      const res = await stack.request('POST', `/api/v1/data/${device.id}/7`, { token: owner.token, body: { value } });
      expect(res.status).toBe(201);
    }
    await eventually(async () => expect(await stack.redis.zcard(keys.projectNotifications(projectId))).toBe(2));
    await eventually(() => expect(notifications.map((n) => n.message).sort()).toEqual(['Too hot: 25', 'Too hot: 26']));
    // Leave and re-enter once more: the crossing raised after every earlier write is the marker;
    // once it is there, a wrong notification for 30 (still inside) would be there too.
    for (const value of ['15', '27']) {
      expect((await stack.request('POST', `/api/v1/data/${device.id}/7`, { token: owner.token, body: { value } })).status).toBe(201);
    }
    await eventually(() => expect(notifications.map((n) => n.message)).toContain('Too hot: 27'));
    expect(notifications.map((n) => n.message).sort()).toEqual(['Too hot: 25', 'Too hot: 26', 'Too hot: 27']);
    expect(await stack.redis.zcard(keys.projectNotifications(projectId))).toBe(3);
  });
});

describe('broker credentials', () => {
  it('refuses the old password after the token is regenerated', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    await (await deviceClient(device.id, device.token)).endAsync();
    const res = await stack.request('POST', `/api/v1/devices/${device.id}/regenerate-token`, { token: owner.token });
    expect(res.status).toBe(200);
    await expect(deviceClient(device.id, device.token)).rejects.toThrow();
    const fresh = await deviceClient(device.id, res.body.data.token);
    expect(fresh.connected).toBe(true);
  });

  it("does not let a device publish under another device's id", async () => {
    const a = await createDevice(stack.request, owner, projectId);
    const b = await createDevice(stack.request, owner, projectId);
    const client = await deviceClient(a.id, a.token);
    // The broker answers the forged publish with PUBACK 135 (not authorized): it never reaches the service.
    await expect(client.publishAsync(`${root()}/${b.id}/pin/V1`, 'forged', { qos: 1 })).rejects.toMatchObject({ code: 135 });
    await client.publishAsync(`${root()}/${a.id}/pin/V1`, 'mine', { qos: 1 });
    await eventually(async () => expect(await stack.redis.hget(keys.devicePins(a.id), 'V1')).not.toBeNull());
    expect(await stack.redis.hget(keys.devicePins(b.id), 'V1')).toBeNull();
  });
});

describe('locks', () => {
  it('refuses pin:write to a locked pin with PIN_LOCKED and stores nothing; the device itself still reports', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const lock = await stack.request('PUT', `/api/v1/devices/${device.id}/pins/V9/lock`, { token: owner.token });
    expect(lock.status).toBe(200);
    expect(lock.body.data).toEqual({ pin: 'V9', lockedAt: expect.any(String), widgetId: null });
    const locks = await stack.request('GET', `/api/v1/devices/${device.id}/locks`, { token: owner.token });
    expect(locks.body.data.locks).toEqual([lock.body.data]);

    const socket = await socketOn(1, { deviceId: device.id });
    const error = nextEvent(socket, 'error');
    const ack = await emitWithAck(socket, 'pin:write', { deviceId: device.id, pin: 'V9', value: '1' });
    expect(ack).toEqual({ success: false, error: { code: 'PIN_LOCKED', message: expect.any(String) } });
    expect(await error).toEqual({ code: 'PIN_LOCKED', message: expect.any(String) });
    expect(await stack.redis.hget(keys.devicePins(device.id), 'V9')).toBeNull();

    const post = await stack.request('POST', `/api/v1/data/${device.id}/9`, { token: owner.token, body: { value: '2' } });
    expect(post.status).toBe(403);
    expect(post.body.error.code).toBe('PIN_LOCKED');

    const client = await deviceClient(device.id, device.token);
    await client.publishAsync(`${root()}/${device.id}/pin/V9`, 'reported', { qos: 1 });
    await eventually(async () => expect(await stack.redis.hget(keys.devicePins(device.id), 'V9')).toContain('reported'));

    expect((await stack.request('DELETE', `/api/v1/devices/${device.id}/pins/V9/lock`, { token: owner.token })).status).toBe(204);
    const after = await emitWithAck(socket, 'pin:write', { deviceId: device.id, pin: 'V9', value: '3' });
    expect(after).toEqual({ success: true, delivered: expect.any(Boolean), commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });
});

describe('delivery to the device', () => {
  it('publishes an app write to an online device at once (delivered true) and keeps one for an offline device', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const client = await deviceClient(device.id, device.token);
    const received: { topic: string; value: string }[] = [];
    client.on('message', (topic, payload) => received.push({ topic, value: payload.toString() }));
    await client.subscribeAsync(`${root()}/${device.id}/pin/+/set`, { qos: 1 });

    const offline = await stack.request('POST', `/api/v1/data/${device.id}/4`, { token: owner.token, body: { value: 'queued' } });
    expect(offline.body.data.delivered).toBe(false);

    await client.publishAsync(`${root()}/${device.id}/status`, 'online', { qos: 1 });
    await eventually(() => expect(received).toContainEqual({ topic: `${root()}/${device.id}/pin/V4/set`, value: 'queued' }));
    await eventually(async () => expect(await stack.redis.hget(keys.deviceState(device.id), 'status')).toBe('online'));

    const online = await stack.request('POST', `/api/v1/data/${device.id}/4`, { token: owner.token, body: { value: 'now' } });
    expect(online.body.data.delivered).toBe(true);
    await eventually(() => expect(received).toContainEqual({ topic: `${root()}/${device.id}/pin/V4/set`, value: 'now' }));
  });
});
