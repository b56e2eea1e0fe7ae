/**
 * A reconnect storm's `twin-online` intents (gateway/outbox/relays.ts): in an outbox family of their
 * own, carried out by relays that share a budget of slots from read to confirmed by the twin, so a
 * notification is carried out at once while the storm's backlog is still pending.
 */
import { randomUUID } from 'node:crypto';
import type { NotificationRecord } from '../../common/contracts';
import { thresholdNotification } from '../helpers/fixtures';
import { createLogger } from '../../common/logger';
import { createRedis, type Redis } from '../../common/redis';
import { keys, streamOf } from '../../common/redis-keys';
import { carryOutIntents } from '../../gateway/outbox/carry-out';
import type { OutboxRelay } from '../../gateway/outbox/relay';
import { relayedStreams, startOutboxRelays } from '../../gateway/outbox/relays';
import { writeStatusAhead } from '../../store/device-mirror';
import { testConfig } from '../harness/config';
import { monitorCommands } from '../helpers/redis-monitor';
import { eventually } from '../helpers/wait';

const config = testConfig();
const logger = createLogger(config.LOG_LEVEL, 'test-online-relays');
const connections: Redis[] = [];
const relays: OutboxRelay[] = [];
/** Settles the twin calls a test left hanging, so the relays can stop. */
const hanging: (() => void)[] = [];

function connect(name: string): Redis {
  const redis = createRedis(config, name);
  connections.push(redis);
  return redis;
}

afterEach(async () => {
  hanging.splice(0).forEach((settle) => settle());
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await Promise.all(connections.splice(0).map((c) => c.quit()));
});

const none = () => Promise.reject(new Error('not part of this test'));
const SLOTS = 4;
const STORM = 400;

/** A storm's devices, each shown online ahead of its twin (write-status-ahead-4.lua: mirror + `twin-online` intent). */
async function storm(redis: Redis, taskQueue: string, projectId: string): Promise<string[]> {
  const ids = Array.from({ length: STORM }, () => randomUUID());
  const at = new Date().toISOString();
  await Promise.all(ids.map((id) => redis.hset(keys.device(id), { id, projectId, name: 'storm device', createdAt: at })));
  await Promise.all(ids.map((deviceId) => writeStatusAhead(redis, { deviceId, at, outbox: keys.onlineOutbox(taskQueue), always: true })));
  return ids;
}

async function onlineBacklog(redis: Redis, taskQueue: string): Promise<number> {
  const lengths = await Promise.all(
    relayedStreams(taskQueue)
      .filter((s) => s.online)
      .map(({ stream }) => redis.xlen(stream)),
  );
  return lengths.reduce((a, b) => a + b, 0);
}

async function start(taskQueue: string, activity: (deviceId: string) => Promise<void>, notified: (r: NotificationRecord) => Promise<void>) {
  const handle = carryOutIntents({
    notification: notified,
    twins: { start: none, rulesChanged: none, end: none, alarmEdge: none, activity, status: none, info: none },
    broker: { remove: none },
    history: { forgetDevices: none },
    tokens: { rollForward: none },
    widgetLocks: { follow: none },
    held: { read: none, settle: none },
    fleet: none,
  });
  const started = await startOutboxRelays({
    // Each relay's own connection, ended by its stop.
    streams: relayedStreams(taskQueue).map((s, k) => ({ ...s, redis: createRedis(config, `test-online-relays-${k}`) })),
    redis: connect('test-online-relays-mirror'),
    consumer: 'node-a',
    handle,
    logger,
    onlineSlots: SLOTS,
    confirmCapMs: 120_000,
    handleTimeoutMs: 120_000,
    retryBaseMs: 100,
    retryMaxMs: 400,
  });
  relays.push(...started);
}

test('a notification is carried out while a storm of twin-online intents waits on twins that do not answer', async () => {
  const redis = connect('test-online-relays-inspect');
  const taskQueue = `test-${randomUUID()}`;
  const projectId = randomUUID();
  await storm(redis, taskQueue, projectId);
  let inFlight = 0;
  let mostInFlight = 0;
  const delivered: string[] = [];
  await start(
    taskQueue,
    () => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      return new Promise<void>((resolve) => hanging.push(resolve)).finally(() => inFlight--);
    },
    async (r) => void delivered.push(r.id),
  );
  await eventually(() => expect(inFlight).toBe(SLOTS));

  const sent = thresholdNotification(projectId);
  await redis.xadd(streamOf(keys.outbox(taskQueue), sent.id), '*', 'type', 'notification', 'payload', JSON.stringify(sent));
  await eventually(() => expect(delivered).toEqual([sent.id]));
  await eventually(async () => expect(await redis.xlen(streamOf(keys.outbox(taskQueue), sent.id))).toBe(0));
  // The storm is still there, nothing of it dropped, and the twins were never given more than the node's slots.
  expect(await onlineBacklog(redis, taskQueue)).toBe(STORM);
  expect(mostInFlight).toBe(SLOTS);
});

test('a twin-online intent holds its slot until its twin confirms the mirror; each confirmation lets one more through', async () => {
  const redis = connect('test-online-relays-inspect');
  const taskQueue = `test-${randomUUID()}`;
  const projectId = randomUUID();
  await storm(redis, taskQueue, projectId);
  const told: string[] = [];
  const delivered: string[] = [];
  // The twins take their signals at once (Temporal accepted them), and confirm only when the test says.
  await start(
    taskQueue,
    async (deviceId) => void told.push(deviceId),
    async (r) => void delivered.push(r.id),
  );
  await eventually(() => expect(told).toHaveLength(SLOTS));
  // Carried out: taken off the outbox as soon as Temporal has the signal.
  await eventually(async () => expect(await onlineBacklog(redis, taskQueue)).toBe(STORM - SLOTS));

  // A notification written now is carried out; by then the relays have had rounds to spare, and told no more twins.
  const sent = thresholdNotification(projectId);
  await redis.xadd(streamOf(keys.outbox(taskQueue), sent.id), '*', 'type', 'notification', 'payload', JSON.stringify(sent));
  await eventually(() => expect(delivered).toEqual([sent.id]));
  expect(told).toHaveLength(SLOTS);

  // The twins confirm (as write-status-4.lua does: `statusAhead` removed): as many more are told.
  await Promise.all(told.slice(0, 2).map((id) => redis.hdel(keys.deviceState(id), 'statusAhead')));
  await eventually(() => expect(told).toHaveLength(SLOTS + 2));
  expect(new Set(told).size).toBe(told.length);
});

test('stopped relays stop waiting on their twins: the node no longer reads the mirror for them', async () => {
  const redis = connect('test-online-relays-inspect');
  const taskQueue = `test-${randomUUID()}`;
  const projectId = randomUUID();
  await storm(redis, taskQueue, projectId);
  const told: string[] = [];
  await start(
    taskQueue,
    async (deviceId) => void told.push(deviceId),
    async () => undefined,
  );
  await eventually(() => expect(told).toHaveLength(SLOTS));
  const { hostname, port } = new URL(config.REDIS_URL);
  let mirrorReads = 0;
  const monitor = await monitorCommands(hostname, Number(port), ([command, key, field]) => {
    if (command?.toLowerCase() === 'hget' && field === 'statusAhead' && told.some((id) => key === keys.deviceState(id))) mirrorReads += 1;
  });
  try {
    // The held slots look at the mirror every 100 ms while their twins have not confirmed.
    await eventually(() => expect(mirrorReads).toBeGreaterThan(SLOTS));
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    const afterStop = mirrorReads;
    // Absence needs a window: three of the waits' 100 ms periods.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mirrorReads - afterStop).toBeLessThanOrEqual(SLOTS);
  } finally {
    monitor.destroy();
  }
});
