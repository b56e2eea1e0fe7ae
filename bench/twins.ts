/**
 * Device-twin bench (issue 3): one twin worker in this process, N twins on it. Prints figures only.
 *
 *   start rate          N twins started (start calls) and bootstrapped (mirror written)
 *   RSS per twin        worker process RSS growth with N twins cached, divided by N
 *   status changes/s    every twin brought online by a status signal (signal + mirror write + event)
 *   signals/s           through one twin, and spread over all N twins
 *   actions/device/min  Temporal actions of devices sending 10 values/s, and 1 value/s for comparison,
 *                       through the gateway's hot path (Redis writes; a deduplicated wake signal only
 *                       while the mirror says offline): the check-back design makes it independent of
 *                       the value rate.
 *
 * Env: BENCH_TWINS (1000), BENCH_SIGNALS_ONE (2000), BENCH_SIGNALS_MANY (5000), BENCH_VALUE_DEVICES (5),
 * BENCH_VALUE_HEARTBEAT_S (10), BENCH_VALUE_SECONDS (60). Servers: REDIS_URL, MQTT_URL (+ MQTT_USERNAME,
 * MQTT_PASSWORD) and TEMPORAL_ADDRESS when all three are set, else throw-away ones it starts itself.
 * Worker tuning as in production (WORKER_MAX_CACHED_WORKFLOWS defaults here to N + 100 so every twin
 * stays cached, which is what RSS per twin measures).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig } from '../common/config';
import { twinWorkflowId } from '../common/contracts';
import { createLogger } from '../common/logger';
import { createMqttClient, mqttConnected } from '../common/mqtt';
import { createRedis, type Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { createTwinClient, type TwinClient } from '../gateway/twin-client';
import { createTwinWorker } from '../workers/create-worker';
import { activitySignal } from '../workflows/device-twin';
import { startBackends } from './support/backends';
import { runBench, type Cleanup } from './support/cleanup';
import { envInt } from './support/env';
import { machineLine } from './support/machine';
import { printRows } from './support/stats';

/** Runs `task` over `items`, `lanes` at a time. */
async function pool<T>(items: readonly T[], lanes: number, task: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await task(items[index] as T, index);
      }
    }),
  );
}

async function waitUntil(what: string, check: () => Promise<boolean>, capMs: number, everyMs = 100): Promise<void> {
  const until = Date.now() + capMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not reached within ${capMs / 1000} s`);
    await delay(everyMs);
  }
}

async function statusesOf(redis: Redis, deviceIds: readonly string[]): Promise<(string | null)[]> {
  const pipeline = redis.pipeline();
  for (const id of deviceIds) pipeline.hget(keys.deviceState(id), 'status');
  return ((await pipeline.exec()) ?? []).map(([, v]) => (v as string | null) ?? null);
}

async function createDeviceHashes(redis: Redis, projectId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hset(keys.device(id), { id, projectId, name: 'bench twin', createdAt: new Date().toISOString() });
  await pipeline.exec();
  return ids;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const perSecond = (count: number, ms: number): string => `${Math.round((count * 1000) / ms)}/s`;

/** Temporal actions (as billed: starts, signals, updates, activity tasks, timers) in a time window. */
async function actionsInWindow(client: Client, deviceId: string, from: number, to: number) {
  const history = await client.workflow.getHandle(twinWorkflowId(deviceId)).fetchHistory();
  const counts = { start: 0, signal: 0, update: 0, activity: 0, timer: 0, workflowTasks: 0 };
  for (const event of history.events ?? []) {
    const at = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
    if (at < from || at > to) continue;
    if (event.workflowExecutionStartedEventAttributes) counts.start += 1;
    if (event.workflowExecutionSignaledEventAttributes) counts.signal += 1;
    if (event.workflowExecutionUpdateAcceptedEventAttributes) counts.update += 1;
    if (event.activityTaskScheduledEventAttributes) counts.activity += 1;
    if (event.timerStartedEventAttributes) counts.timer += 1;
    if (event.workflowTaskCompletedEventAttributes) counts.workflowTasks += 1;
  }
  return counts;
}

/**
 * Plays the gateway's hot path for one device at `rate` values per second: one pipeline writes
 * lastSeen and the pin and reads the mirrored status; only when that is not `online` does it wake
 * the twin, at most once per 5 s (the deduplication the gateway does with a Redis NX key).
 */
function valueStream(redis: Redis, twins: TwinClient, projectId: string, deviceId: string, rate: number): () => void {
  let value = 0;
  let stopped = false;
  const tick = async (): Promise<void> => {
    const updatedAt = new Date().toISOString();
    value += 1;
    const results = await redis
      .pipeline()
      .hset(keys.deviceState(deviceId), 'lastSeen', updatedAt)
      .hset(keys.devicePins(deviceId), 'V1', JSON.stringify({ value: String(value), updatedAt }))
      .hget(keys.deviceState(deviceId), 'status')
      .exec();
    if (results?.[2]?.[1] === 'online') return;
    if ((await redis.set(`bench:wake:${deviceId}`, '1', 'PX', 5000, 'NX')) === 'OK') await twins.activity(deviceId, projectId, updatedAt, 'V1');
  };
  const timer = setInterval(() => {
    if (!stopped) tick().catch((err: unknown) => process.stderr.write(`value stream: ${String(err)}\n`));
  }, 1000 / rate);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

async function bench(cleanup: Cleanup): Promise<void> {
  const n = envInt('BENCH_TWINS', 1000);
  const signalsOne = envInt('BENCH_SIGNALS_ONE', 2000);
  const signalsMany = envInt('BENCH_SIGNALS_MANY', 5000);
  const valueDevices = envInt('BENCH_VALUE_DEVICES', 5);
  const valueHeartbeatS = envInt('BENCH_VALUE_HEARTBEAT_S', 10);
  const valueSeconds = envInt('BENCH_VALUE_SECONDS', 60);
  process.stdout.write(`${machineLine()}\ntwins: ${n}\n`);

  const own = !(process.env.REDIS_URL && process.env.MQTT_URL && process.env.TEMPORAL_ADDRESS);
  const servers = own
    ? await startBackends(cleanup).then((b) => ({
        REDIS_URL: b.redisUrl,
        MQTT_URL: b.mqttUrl,
        MQTT_USERNAME: b.mqttUsername,
        MQTT_PASSWORD: b.mqttPassword,
        TEMPORAL_ADDRESS: b.temporalAddress,
      }))
    : {};
  const config = loadConfig({
    ...process.env,
    ...servers,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    WORKER_MAX_CACHED_WORKFLOWS: process.env.WORKER_MAX_CACHED_WORKFLOWS ?? String(n + valueDevices * 2 + 100),
  });
  const address = config.TEMPORAL_ADDRESS as string;
  Runtime.install({ logger: new DefaultLogger('WARN') });

  const redis = createRedis(config, 'bench-twins');
  cleanup.add('redis', async () => void (await redis.quit()));
  const mqtt = createMqttClient(config, 'bench-twins');
  cleanup.add('mqtt', async () => void (await mqtt.endAsync()));
  await mqttConnected(mqtt);
  const nativeConnection = await NativeConnection.connect({ address });
  cleanup.add('worker connection', () => nativeConnection.close());
  const taskQueue = `bench-twins-${randomUUID().slice(0, 8)}`;
  const logger = createLogger(config.LOG_LEVEL, 'bench-twins');
  const worker = await createTwinWorker({ config, connection: nativeConnection, redis, mqtt, logger, taskQueue });
  const running = worker.run();
  cleanup.add('worker', async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  });
  const connection = await Connection.connect({ address });
  cleanup.add('client connection', () => connection.close());
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const twins = createTwinClient({ client, taskQueue, heartbeatTimeoutS: 3600, timeoutMs: 60_000 });
  const projectId = randomUUID();
  await delay(2000);

  // ---- Start N twins -------------------------------------------------------------------------
  const rssBefore = process.memoryUsage().rss;
  const ids = await createDeviceHashes(redis, projectId, n);
  const t0 = Date.now();
  await pool(ids, 32, (id) => twins.start(id, projectId));
  const startedMs = Date.now() - t0;
  await waitUntil('every twin bootstrapped', async () => (await statusesOf(redis, ids)).every((s) => s === 'offline'), 600_000, 200);
  const readyMs = Date.now() - t0;
  await delay(3000);
  const rssAfter = process.memoryUsage().rss;

  // ---- Every twin online: a status change each ----------------------------------------------
  const t1 = Date.now();
  await pool(ids, 32, (id) => twins.status(id, projectId, 'online', new Date().toISOString()));
  await waitUntil('every twin online', async () => (await statusesOf(redis, ids)).every((s) => s === 'online'), 600_000, 200);
  const onlineMs = Date.now() - t1;

  // ---- Signals through one twin ----------------------------------------------------------------
  const one = ids[0] as string;
  const oneHandle = client.workflow.getHandle(twinWorkflowId(one));
  const oneBefore = (await twins.state(one))?.stats.signals ?? 0;
  const base = Date.now();
  const t2 = Date.now();
  await pool(
    Array.from({ length: signalsOne }, (_, i) => i),
    8,
    (i) => oneHandle.signal(activitySignal, { at: new Date(base + i).toISOString() }),
  );
  const oneSentMs = Date.now() - t2;
  await waitUntil('one twin applied its signals', async () => ((await twins.state(one))?.stats.signals ?? 0) >= oneBefore + signalsOne, 600_000, 50);
  const oneAppliedMs = Date.now() - t2;

  // ---- Signals spread over all twins -----------------------------------------------------------
  const expected = new Map<string, number>();
  for (const id of ids) expected.set(id, ((await twins.state(id))?.stats.signals ?? 0));
  const t3 = Date.now();
  await pool(
    Array.from({ length: signalsMany }, (_, i) => i),
    32,
    async (i) => {
      const id = ids[i % ids.length] as string;
      expected.set(id, (expected.get(id) ?? 0) + 1);
      await client.workflow.getHandle(twinWorkflowId(id)).signal(activitySignal, { at: new Date().toISOString() });
    },
  );
  const manySentMs = Date.now() - t3;
  await waitUntil(
    'all twins applied their signals',
    async () => {
      let done = true;
      await pool(ids, 32, async (id) => {
        if (((await twins.state(id))?.stats.signals ?? 0) < (expected.get(id) ?? 0)) done = false;
      });
      return done;
    },
    600_000,
    200,
  );
  const manyAppliedMs = Date.now() - t3;

  const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const sentApplied = (count: number, sentMs: number, appliedMs: number): string =>
    `${count} sent in ${secs(sentMs)} (${perSecond(count, sentMs)}), ` +
    `applied after ${secs(appliedMs)} (${perSecond(count, appliedMs)})`;
  const perTwinKb = ((rssAfter - rssBefore) / n / 1024).toFixed(0);
  printRows('\nTwins on one worker', [
    ['twins started', `${n} start calls in ${secs(startedMs)} (${perSecond(n, startedMs)})`],
    ['twins bootstrapped', `all mirrors written after ${secs(readyMs)} (${perSecond(n, readyMs)})`],
    ['worker RSS', `${mb(rssBefore)} before, ${mb(rssAfter)} with ${n} twins cached: ${perTwinKb} KB per twin`],
    ['status changes', `${n} twins online in ${secs(onlineMs)} (${perSecond(n, onlineMs)}; signal + mirror write + event)`],
    ['signals, one twin', sentApplied(signalsOne, oneSentMs, oneAppliedMs)],
    ['signals, all twins', sentApplied(signalsMany, manySentMs, manyAppliedMs)],
  ]);

  // ---- Temporal actions of devices sending values --------------------------------------------
  const valueTwins = createTwinClient({ client, taskQueue, heartbeatTimeoutS: valueHeartbeatS });
  const fast = await createDeviceHashes(redis, projectId, valueDevices);
  const slow = await createDeviceHashes(redis, projectId, valueDevices);
  await pool([...fast, ...slow], 16, (id) => valueTwins.start(id, projectId));
  const stops = [
    ...fast.map((id) => valueStream(redis, valueTwins, projectId, id, 10)),
    ...slow.map((id) => valueStream(redis, valueTwins, projectId, id, 1)),
  ];
  cleanup.add('value streams', async () => stops.forEach((stop) => stop()));
  await waitUntil('value devices online', async () => (await statusesOf(redis, [...fast, ...slow])).every((s) => s === 'online'), 60_000);
  await delay((valueHeartbeatS + 1) * 1000); // past the first check-back: steady state
  const w0 = Date.now();
  await delay(valueSeconds * 1000);
  const w1 = Date.now();
  stops.forEach((stop) => stop());

  const perMinute = async (group: string[]) => {
    const totals: Record<string, number> = {};
    for (const id of group) {
      for (const [k, v] of Object.entries(await actionsInWindow(client, id, w0, w1))) totals[k] = (totals[k] ?? 0) + v;
    }

    const scale = 60_000 / (w1 - w0) / group.length;
    const actions = ['start', 'signal', 'update', 'activity', 'timer'].reduce((sum, k) => sum + (totals[k] ?? 0), 0) * scale;
    const detail = ['signal', 'activity', 'timer'].map((k) => `${k} ${((totals[k] ?? 0) * scale).toFixed(1)}`).join(', ');
    return { actions, line: `${actions.toFixed(1)} actions/device/min (${detail}; workflow tasks ${((totals.workflowTasks ?? 0) * scale).toFixed(1)})` };
  };
  const fastFigures = await perMinute(fast);
  const slowFigures = await perMinute(slow);
  const at60 = (fastFigures.actions * valueHeartbeatS) / 60;
  printRows(`\nTemporal actions, heartbeat ${valueHeartbeatS} s, over ${valueSeconds} s, ${valueDevices} devices per rate`, [
    ['10 values/s', fastFigures.line],
    ['1 value/s', slowFigures.line],
    ['at DEVICE_HEARTBEAT_TIMEOUT_S=60', `~${at60.toFixed(1)} actions/device/min (one check-back per timeout, whatever the value rate)`],
  ]);
}

void runBench('twins', bench);
