/**
 * The twin's activities on their own, against the real Redis and broker: what a retry does, what
 * a late write for a deleted device does, and that Socket.IO events reach a server running the
 * gateway's Redis adapter.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createAdapter } from '@socket.io/redis-adapter';
import { Server } from 'socket.io';
import { io as connectClient, type Socket } from 'socket.io-client';
import { createActivities, createRoomEmitter, type TwinActivities } from '../../activities';
import type { DeviceStatusEvent, NotificationRecord } from '../../common/contracts';
import { rooms } from '../../common/contracts';
import { createLogger } from '../../common/logger';
import { createMqttClient, mqttConnected, type MqttClient } from '../../common/mqtt';
import { createRedis, type Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { writeStatusAhead } from '../../store/device-mirror';
import { testConfig } from '../harness/config';
import { createDevice, eventually, notificationsOf } from './helpers';
import { scanKeys } from '../helpers/scan-keys';

let redis: Redis;
let mqtt: MqttClient;
let acts: TwinActivities;

beforeAll(async () => {
  const config = testConfig();
  redis = createRedis(config, 'test-twin-activities');
  mqtt = createMqttClient(config, 'test-twin-activities');
  await mqttConnected(mqtt);
  acts = createActivities({
    redis,
    mqtt,
    emit: createRoomEmitter(redis),
    logger: createLogger('silent', 'test'),
    topicRoot: config.MQTT_TOPIC_ROOT,
    emailDailyCap: config.EMAIL_DAILY_CAP_PER_ACCOUNT,
    notificationRetentionDays: config.NOTIFICATION_RETENTION_DAYS,
  });
});

afterAll(async () => {
  await Promise.allSettled([mqtt?.endAsync(), redis?.quit()]);
});

function record(device: { deviceId: string; projectId: string }, overrides: Partial<NotificationRecord> = {}): NotificationRecord {
  return {
    id: randomUUID(),
    projectId: device.projectId,
    deviceId: device.deviceId,
    ruleId: randomUUID(),
    type: 'device_status',
    title: 'Device offline',
    message: 'Device is offline',
    priority: 'high',
    channels: ['inApp'],
    read: false,
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

test('a retried createNotification stores one record, indexed once', async () => {
  const device = await createDevice(redis);
  const r = record(device);
  expect((await acts.createNotification({ record: r })).outcome).toBe('created');
  expect((await acts.createNotification({ record: r })).outcome).toBe('exists');
  expect(await notificationsOf(redis, device.projectId)).toEqual([r]);
  expect(await redis.zrange(keys.projectNotifications(device.projectId), '0', '-1', 'WITHSCORES')).toEqual([
    r.id,
    String(Date.parse(r.createdAt)),
  ]);
});

test('createNotification delivers inApp only; email and push are left to their own activities', async () => {
  const device = await createDevice(redis);
  const result = await acts.createNotification({ record: record(device, { channels: ['inApp', 'email', 'push'] }) });
  expect(result).toEqual({ outcome: 'created', delivered: ['inApp'], skipped: ['email', 'push'] });
});

test('writes for a deleted device leave no keys behind', async () => {
  const device = await createDevice(redis);
  await redis.del(keys.device(device.deviceId));
  const at = new Date().toISOString();
  expect(await acts.writeStatus({ deviceId: device.deviceId, status: 'online', statusChangedAt: at, lastSeen: at })).toEqual({
    written: false,
    lastSeen: null,
  });
  expect(await acts.writeInfo({ deviceId: device.deviceId, firmwareVersion: '1' })).toEqual({ written: false });
  expect(await acts.writeLock({ deviceId: device.deviceId, lock: { pin: 'V1', lockedAt: at, widgetId: null } })).toEqual({
    written: false,
  });
  expect((await acts.createNotification({ record: record(device) })).outcome).toBe('gone');
  expect(await scanKeys(redis, `*${device.deviceId}*`)).toEqual([]);
  expect(await redis.exists(keys.projectNotifications(device.projectId))).toBe(0);
});

test('lastSeen in the mirror only moves forward', async () => {
  const device = await createDevice(redis);
  const later = new Date().toISOString();
  const earlier = new Date(Date.now() - 60_000).toISOString();
  await redis.hset(keys.deviceState(device.deviceId), 'lastSeen', later); // the gateway's hot path
  const result = await acts.writeStatus({
    deviceId: device.deviceId,
    status: 'offline',
    statusChangedAt: earlier,
    lastSeen: earlier,
  });
  expect(result).toEqual({ written: true, lastSeen: later });
  expect(await redis.hgetall(keys.deviceState(device.deviceId))).toEqual({
    status: 'offline',
    statusChangedAt: earlier,
    lastSeen: later,
  });
});

test('an online written ahead by the gateway: not over a later change, not undone by an older offline, confirmed by the twin', async () => {
  const device = await createDevice(redis);
  const base = Date.now();
  const t = (s: number) => new Date(base + s * 1000).toISOString();
  const req = { deviceId: device.deviceId };
  await acts.writeStatus({ ...req, status: 'offline', statusChangedAt: t(0), lastSeen: null });
  const outbox = `test-outbox-${randomUUID()}`;
  const ahead = (at: string) => writeStatusAhead(redis, { deviceId: device.deviceId, at, outbox });
  /** The intents written: the outbox family's stream this device's intents go to (named from `outbox`). */
  const intents = async (): Promise<string[][]> => {
    const streams = await scanKeys(redis, `${outbox}*`);
    const entries = await Promise.all(streams.map((stream) => redis.xrange(stream, '-', '+')));
    return entries.flat().map(([, fields]) => fields);
  };
  expect(await ahead(t(-1))).toMatchObject({ written: false, status: 'offline', lastSeen: t(-1) });
  expect(await intents()).toEqual([]);
  expect(await ahead(t(2))).toMatchObject({ written: true, status: 'online', lastSeen: t(2) });
  const [intent = []] = await intents();
  expect(intent.slice(0, 3)).toEqual(['type', 'twin-online', 'payload']);
  expect(JSON.parse(intent[3] ?? '')).toEqual({ deviceId: device.deviceId, projectId: device.projectId, at: t(2) });
  expect(await ahead(t(3))).toMatchObject({ written: false, status: 'online', lastSeen: t(3) }); // shown online already: activity only
  expect(await intents()).toHaveLength(1);
  // The twin's own offline from before the activity (its queued signal will bring it online): kept ahead.
  await acts.writeStatus({ ...req, status: 'offline', statusChangedAt: t(1), lastSeen: null });
  expect(await redis.hgetall(keys.deviceState(device.deviceId))).toMatchObject({
    status: 'online',
    statusChangedAt: t(2),
    statusAhead: '1',
  });
  // The twin's online confirms it: the mark goes, and nothing changed, so no second event is due.
  expect(await acts.writeStatus({ ...req, status: 'online', statusChangedAt: t(2), lastSeen: t(2) })).toEqual({
    written: true,
    lastSeen: t(3),
  });
  const state = await redis.hgetall(keys.deviceState(device.deviceId));
  expect(state).toMatchObject({ status: 'online', statusChangedAt: t(2) });
  expect(state.statusAhead).toBeUndefined();
  // A later offline from the twin always wins.
  await acts.writeStatus({ ...req, status: 'offline', statusChangedAt: t(4), lastSeen: null, disconnectReason: 'timeout' });
  expect(await redis.hgetall(keys.deviceState(device.deviceId))).toMatchObject({
    status: 'offline',
    statusChangedAt: t(4),
    disconnectReason: 'timeout',
  });
  for (const stream of await scanKeys(redis, `${outbox}*`)) await redis.del(stream);
});

test("a twin's first status does not replace an online the gateway wrote ahead during its start", async () => {
  const base = Date.now();
  const t = (s: number) => new Date(base + s * 1000).toISOString();
  const outbox = `test-outbox-${randomUUID()}`;
  const shown = await createDevice(redis);
  // The twin read a mirror without a status; the device connected before the twin's write.
  expect(await writeStatusAhead(redis, { deviceId: shown.deviceId, at: t(1), outbox })).toMatchObject({ written: true, status: 'online' });
  const first = { status: 'offline', statusChangedAt: t(2), lastSeen: null, firstStatus: true } as const;
  expect(await acts.writeStatus({ ...first, deviceId: shown.deviceId })).toEqual({ written: true, lastSeen: t(1) });
  expect(await redis.hgetall(keys.deviceState(shown.deviceId))).toMatchObject({
    status: 'online',
    statusChangedAt: t(1),
    statusAhead: '1',
  });
  // A device with no status still gets the twin's.
  const quiet = await createDevice(redis);
  await acts.writeStatus({ ...first, deviceId: quiet.deviceId });
  expect(await redis.hgetall(keys.deviceState(quiet.deviceId))).toMatchObject({ status: 'offline', statusChangedAt: t(2) });
  for (const stream of await scanKeys(redis, `${outbox}*`)) await redis.del(stream);
});

test('device:status and notification reach a Socket.IO server on the Redis adapter', async () => {
  const config = testConfig();
  const pub = createRedis(config, 'test-adapter-pub');
  const sub = createRedis(config, 'test-adapter-sub');
  const httpServer = createServer();
  const server = new Server(httpServer, { adapter: createAdapter(pub, sub) });
  const device = await createDevice(redis);
  server.on('connection', (socket) => {
    // As a socket subscribed to the project sits (gateway/realtime/socket-server.ts): its rooms and the project's watch room.
    void socket.join([rooms.project(device.projectId), rooms.device(device.deviceId), rooms.watch(device.projectId)]);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  const client: Socket = connectClient(`http://127.0.0.1:${port}`, { transports: ['websocket'] });
  const statuses: DeviceStatusEvent[] = [];
  const notifications: NotificationRecord[] = [];
  client.on('device:status', (e: DeviceStatusEvent) => statuses.push(e));
  client.on('notification', (r: NotificationRecord) => notifications.push(r));
  try {
    await new Promise<void>((resolve) => client.on('connect', () => resolve()));
    // The adapter's subscription must be live before the emits under test (DESIGN §7): probe until one arrives.
    const emit = createRoomEmitter(redis);
    await eventually(async () => {
      await emit([rooms.project(device.projectId)], 'device:status', { deviceId: 'probe', status: 'offline', lastSeen: null });
      await new Promise((r) => setTimeout(r, 50));
      expect(statuses.length).toBeGreaterThan(0);
    });

    const at = new Date().toISOString();
    await acts.writeStatus({ deviceId: device.deviceId, status: 'online', statusChangedAt: at, lastSeen: at });
    const r = record(device, { type: 'no_data', title: 'No data on V3' });
    await acts.createNotification({ record: r });

    await eventually(() =>
      expect(statuses.filter((e) => e.deviceId !== 'probe')).toEqual([
        { deviceId: device.deviceId, status: 'online', lastSeen: at, reason: null, seq: expect.any(Number) },
      ]),
    );
    await eventually(() => expect(notifications).toEqual([r]));
  } finally {
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled([pub.quit(), sub.quit()]);
  }
});
