import { randomUUID } from 'node:crypto';
import type { NotificationRecord } from '../../common/contracts';
import { thresholdNotification } from '../helpers/fixtures';
import { createLogger } from '../../common/logger';
import { createRedis, type Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { carryOutIntents, type IntentHandlers } from '../../gateway/outbox/carry-out';
import { OUTBOX_GROUP } from '../../common/outbox-intents';
import { startOutboxRelay, type OutboxRelay } from '../../gateway/outbox/relay';
import { testConfig } from '../harness/config';
import { eventually } from '../helpers/wait';

const config = testConfig();
const logger = createLogger(config.LOG_LEVEL, 'test-outbox');
const connections: Redis[] = [];
const relays: OutboxRelay[] = [];

function connect(name: string): Redis {
  const redis = createRedis(config, name);
  connections.push(redis);
  return redis;
}

afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await Promise.all(connections.splice(0).map((c) => c.quit()));
});

async function write(redis: Redis, stream: string, notification: NotificationRecord): Promise<void> {
  await redis.xadd(stream, '*', 'type', 'notification', 'payload', JSON.stringify(notification));
}

const none = () => Promise.reject(new Error('these tests carry out notifications only'));
const noTwins = { start: none, rulesChanged: none, end: none, alarmEdge: none, activity: none, status: none, info: none };
const noBroker = { remove: none };

async function relay(
  stream: string,
  consumer: string,
  notification: (r: NotificationRecord) => Promise<void>,
  twins: IntentHandlers['twins'] = noTwins,
): Promise<OutboxRelay> {
  const started = await startOutboxRelay({
    redis: createRedis(config, `test-outbox-${consumer}`), // the relay's own: its stop ends it
    stream,
    consumer,
    handle: carryOutIntents({
      notification,
      twins,
      broker: noBroker,
      history: { forgetDevices: none },
      tokens: { rollForward: none },
      widgetLocks: { follow: none },
      held: { read: none, settle: none },
      fleet: none,
    }),
    logger,
    retryBaseMs: 100,
    retryMaxMs: 400,
    blockMs: 100,
  });
  relays.push(started);
  return started;
}

test('an intent whose handler fails the first times is retried with backoff and carried out once, then removed', async () => {
  const redis = connect('test-outbox-inspect');
  const stream = keys.outbox(`test-${randomUUID()}`);
  const attempts: number[] = [];
  const done: string[] = [];
  const node = await relay(stream, 'node-a', async (r) => {
    attempts.push(Date.now());
    if (attempts.length <= 3) throw new Error('Temporal unavailable');
    done.push(r.id);
  });
  const sent = thresholdNotification();
  await write(redis, stream, sent);
  await eventually(() => expect(done).toEqual([sent.id]), 10_000);
  await eventually(async () => expect(await redis.xlen(stream)).toBe(0));
  await eventually(() => expect(node.backlog()).toBe(0));
  expect(attempts).toHaveLength(4);
  // Backoff: each wait at least as long as the one before (100, 200, 400 ms, give or take a round).
  const waits = attempts.slice(1).map((t, i) => t - (attempts[i] as number));
  expect(waits[2] as number).toBeGreaterThanOrEqual(350);
  expect(await redis.xpending(stream, OUTBOX_GROUP)).toEqual([0, null, null, null]);
});

test('an intent that keeps failing stays in the outbox and counts as backlog', async () => {
  const redis = connect('test-outbox-inspect');
  const stream = keys.outbox(`test-${randomUUID()}`);
  let attempts = 0;
  const node = await relay(stream, 'node-a', async () => {
    attempts++;
    throw new Error('Temporal unavailable');
  });
  await write(redis, stream, thresholdNotification());
  await eventually(() => expect(attempts).toBeGreaterThanOrEqual(4), 10_000);
  expect(await redis.xlen(stream)).toBe(1);
  await eventually(() => expect(node.backlog()).toBe(1));
});

test('an entry a dead node read and never acknowledged is claimed and carried out by another node', async () => {
  const redis = connect('test-outbox-inspect');
  const stream = keys.outbox(`test-${randomUUID()}`);
  const done: string[] = [];
  await redis.xgroup('CREATE', stream, OUTBOX_GROUP, '0', 'MKSTREAM');
  const sent = thresholdNotification();
  await write(redis, stream, sent);
  // The "dead" node: read the entry in the group, then never carried it out.
  const read = await redis.xreadgroup('GROUP', OUTBOX_GROUP, 'dead-node', 'COUNT', 10, 'STREAMS', stream, '>');
  expect(read).toHaveLength(1);
  await relay(stream, 'node-b', async (r) => {
    done.push(r.id);
  });
  await eventually(() => expect(done).toEqual([sent.id]), 10_000);
  await eventually(async () => expect(await redis.xlen(stream)).toBe(0));
});

test('an entry that is not an intent is left pending, and the next one is still carried out', async () => {
  const redis = connect('test-outbox-inspect');
  const stream = keys.outbox(`test-${randomUUID()}`);
  const done: string[] = [];
  await relay(stream, 'node-a', async (r) => {
    done.push(r.id);
  });
  await redis.xadd(stream, '*', 'type', 'notification', 'payload', '{"not":"a record"}');
  const sent = thresholdNotification();
  await write(redis, stream, sent);
  await eventually(() => expect(done).toEqual([sent.id]), 10_000);
  expect(await redis.xlen(stream)).toBe(1);
});

test("one device's intents read together are carried out in the order written, other devices' beside them", async () => {
  const redis = connect('test-outbox-inspect');
  const stream = keys.outbox(`test-${randomUUID()}`);
  const ordered = Array.from({ length: 4 }, () => ({ ...thresholdNotification(), deviceId: 'device-a' }));
  const other = { ...thresholdNotification(), deviceId: 'device-b' };
  for (const n of [...ordered, other]) await write(redis, stream, n);
  const steps: string[] = [];
  let otherDone: () => void = () => undefined;
  const otherHandled = new Promise<void>((resolve) => (otherDone = resolve));
  await relay(stream, 'node-a', async (n) => {
    const name = n.deviceId === 'device-b' ? 'b' : `a${ordered.findIndex((o) => o.id === n.id)}`;
    steps.push(`start ${name}`);
    // The first of device-a's waits for device-b's: device-b's must not wait behind device-a's.
    if (name === 'a0') await otherHandled;
    if (name === 'b') otherDone();
    steps.push(`end ${name}`);
  });
  await eventually(async () => expect(await redis.xlen(stream)).toBe(0));
  expect(steps.filter((s) => s.endsWith('a0') || s.endsWith('a1') || s.endsWith('a2') || s.endsWith('a3'))).toEqual(
    ['a0', 'a1', 'a2', 'a3'].flatMap((a) => [`start ${a}`, `end ${a}`]),
  );
  expect(steps.indexOf('end b')).toBeLessThan(steps.indexOf('end a0'));
});

test('entries that keep failing at the head of the outbox hide no entry behind them from its retry', async () => {
  const redis = connect('test-outbox-inspect');
  const stream = keys.outbox(`test-${randomUUID()}`);
  const failing = new Set<string>();
  for (let i = 0; i < 120; i++) {
    const n = thresholdNotification();
    failing.add(n.id);
    await write(redis, stream, n);
  }
  const behind = thresholdNotification();
  await write(redis, stream, behind);
  let behindAttempts = 0;
  const done: string[] = [];
  await relay(stream, 'node-a', async (r) => {
    if (failing.has(r.id)) throw new Error('this one keeps failing');
    behindAttempts += 1;
    if (behindAttempts === 1) throw new Error('failed once');
    done.push(r.id);
  });
  await eventually(() => expect(done).toEqual([behind.id]), 15_000);
  expect(await redis.xlen(stream)).toBe(failing.size);
});

test("a fleet catch-up's chunks read together are carried out one after another, each chunk's twins told side by side", async () => {
  const redis = connect('test-outbox-inspect');
  const stream = keys.outbox(`test-${randomUUID()}`);
  const chunks = [0, 1, 2].map((c) => [`c${c}-a`, `c${c}-b`]);
  for (const deviceIds of chunks) {
    await redis.xadd(stream, '*', 'type', 'rules-changed', 'payload', JSON.stringify({ projectId: 'p', deviceIds }));
  }
  const told: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const rulesChanged = async (deviceId: string) => {
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    inFlight -= 1;
    told.push(deviceId);
    return { rules: [] };
  };
  await relay(stream, 'node-a', none, { ...noTwins, rulesChanged });
  await eventually(async () => expect(await redis.xlen(stream)).toBe(0));
  expect(told.sort()).toEqual(chunks.flat().sort());
  expect(mostInFlight).toBe(2);
});
