/**
 * Device-twin bench (issue 14 items 2 and 3). A gateway process and a separate twin worker process
 * (as in production: dist/gateway/main.js, dist/workers/main.js) on throw-away servers. Prints
 * figures only. BENCH_PHASES (locks,storm,fleet,actions,flood) picks the phases to run; ONLINE_RELAY_SLOTS (32) is
 * the gateway's; BENCH_TEMPORAL_DB=file keeps the dev server's SQLite in a file (bench/support/backends.ts).
 *
 *   locks             BENCH_LOCKS (300) lock and unlock requests in turn on one device through the
 *                     management API (PUT / DELETE /api/v1/devices/{id}/pins/V1/lock), one at a
 *                     time: each is an Update of the twin, answered once the twin has written it.
 *
 *   reconnect storm   BENCH_STORM devices (10,000), mirrored offline, publish `online` on their
 *                     status topics at once: time until every one is shown online (the mirror,
 *                     and `device:status` at a Socket.IO client subscribed to the project), and,
 *                     as the same run's baseline, until every twin has confirmed it (the twin round
 *                     trip: what the mirror showed before the gateway wrote ahead). Their twins are
 *                     not running before (as after a lost twin): each is started by the signal the
 *                     outbox relay sends it (signal-with-start), so the confirmation includes starts.
 *                     Meanwhile BENCH_STORM_PROBES (2) devices are created through the API: how long
 *                     until their twins bootstrap (their twin-start intents share the outbox with the
 *                     storm's); and the gateway's activity signals sent and failed.
 *   fleet             twins on the one worker up to BENCH_FLEET (100,000) or as many as its
 *                     dev-server Temporal starts within BENCH_FLEET_LIMIT_S (600), in steps of
 *                     BENCH_FLEET_STEP (2,500): the worker's
 *                     RSS at each step (flat beyond its workflow cache, WORKER_MAX_CACHED_WORKFLOWS),
 *                     the start rate, and the lateness of a sample of heartbeat timers (twins
 *                     evicted from the cache, brought back by their timer).
 *   actions           BENCH_VALUE_DEVICES (20) online devices sending 1 value/s over MQTT through
 *                     the gateway, heartbeat BENCH_HEARTBEAT_S (10 s), for BENCH_VALUE_PERIODS (6)
 *                     periods: Temporal actions per device per heartbeat period, counted from the
 *                     histories and the pending activities' attempts (bench/support/twin-actions.ts).
 *   flood             one device publishing `online` and `info` BENCH_FLOOD (1000) times each in
 *                     BENCH_FLOOD_MS (5000): its twin's Temporal actions, beside one per message.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, DeviceStatusEvent, ServerToClientEvents } from '../common/contracts';
import { createRedis, type Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { createTwinClient, type TwinClient } from '../gateway/temporal/twin-client';
import { createAccount, createDevices, type BenchAccount } from './support/api';
import { startBackends, type Backends } from './support/backends';
import { runBench, type Cleanup } from './support/cleanup';
import { envInt } from './support/env';
import { pool, waitUntil } from './support/lanes';
import { machineLine } from './support/machine';
import { mirrorFields as fields } from './support/mirror';
import { closeFleet, connectFleet } from './support/mqtt-fleet';
import { rssBytes } from './support/rss';
import { gatewayNode, startService, startWorker } from './support/service-process';
import { twinSignals } from './support/service-metrics';
import { latencyLine, printRows, summarize } from './support/stats';
import { ACTION_KINDS, actionsInWindow, pendingAttempts, total, type ActionCount } from './support/twin-actions';

const TOPIC_ROOT = 'bench';
const TASK_QUEUE = 'device-twins';
/** Twins of the storm and the fleet: a heartbeat longer than the bench, so they cost nothing once online. */
const QUIET_HEARTBEAT_S = 36_000;

/** Device hashes in Redis (as the API writes them); `offlineSince`: with a mirror that shows them offline since then. */
async function createDeviceHashes(redis: Redis, projectId: string, count: number, offlineSince?: string): Promise<string[]> {
  const ids = Array.from({ length: count }, () => randomUUID());
  for (let i = 0; i < ids.length; i += 5000) {
    const pipeline = redis.pipeline();
    for (const id of ids.slice(i, i + 5000)) {
      pipeline.hset(keys.device(id), { id, projectId, name: 'bench twin', createdAt: new Date().toISOString() });
      if (offlineSince) pipeline.hset(keys.deviceState(id), { status: 'offline', statusChangedAt: offlineSince });
    }
    await pipeline.exec();
  }
  return ids;
}

/** Starts the twins of `ids` (start calls, 32 at a time) and waits until each has bootstrapped (its mirror has a status). */
async function startTwins(redis: Redis, twins: TwinClient, projectId: string, ids: readonly string[], capMs: number) {
  const t0 = Date.now();
  await pool(ids, 32, (id) => twins.start(id, projectId));
  const calledMs = Date.now() - t0;
  await waitUntil('twins bootstrapped', async () => (await fields(redis, ids, 'status')).every((s) => s !== null), capMs, 500);
  return { calledMs, readyMs: Date.now() - t0 };
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const perSecond = (count: number, ms: number): string => `${Math.round((count * 1000) / ms)}/s`;
/** A process's RSS for a table; `rssBytes` reads NaN once the process has exited. */
const mb = (bytes: number): string => (Number.isNaN(bytes) ? 'gone (the process has exited)' : `${(bytes / 1024 / 1024).toFixed(0)} MB`);

interface Run {
  backends: Backends;
  cleanup: Cleanup;
  redis: Redis;
  client: Client;
  quiet: TwinClient;
  baseUrl: string;
  metricsUrl: string;
  account: BenchAccount;
  token: string;
  projectId: string;
  workerPid: number;
  cacheSize: number;
  onlineSlots: number;
}

/** Lock and unlock requests in turn on one device, one at a time: the latency of a twin Update, as a dashboard sees it. */
async function locks(run: Run, count: number): Promise<void> {
  const [deviceId] = await createDevices(run.account, 1);
  const path = `${run.baseUrl}/api/v1/devices/${deviceId}/pins/V1/lock`;
  const call = async (method: 'PUT' | 'DELETE'): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json' },
      body: method === 'PUT' ? '{}' : undefined,
    });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${method} lock answered ${res.status}`);
    return performance.now() - t0;
  };
  // The first requests start the twin and warm both processes up: not measured.
  for (let i = 0; i < 20; i++) await call(i % 2 === 0 ? 'PUT' : 'DELETE');
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) latencies.push(await call(i % 2 === 0 ? 'PUT' : 'DELETE'));
  printRows(`\nLocks: ${count} lock and unlock requests in turn on one device, one at a time`, [
    ['request → answer', latencyLine(summarize(latencies))],
  ]);
}

/**
 * `count` devices created through the API once the storm is shown online (each a `twin-start`
 * intent in its shard's outbox, beside the storm's `twin-online` ones): how long until each twin
 * has bootstrapped (its mirror has a status).
 */
async function probeNewDevices(run: Run, count: number): Promise<string> {
  if (count === 0) return 'none created (BENCH_STORM_PROBES=0)';
  const t0 = Date.now();
  const ids = await createDevices(run.account, count, count);
  const createdMs = Date.now() - t0;
  try {
    const readyMs = await waitUntil(
      'storm: new twins bootstrapped',
      async () => (await fields(run.redis, ids, 'status')).every((s) => s !== null),
      300_000,
      200,
    );
    return `${count} created through the API in ${secs(createdMs)}, their twins bootstrapped after ${secs(readyMs)}`;
  } catch {
    return `${count} created through the API in ${secs(createdMs)}, their twins NOT bootstrapped within 300 s`;
  }
}

/** Item 2: every storm device's first `device:status` online at one Socket.IO client, the mirror, and the twins' confirmation. */
async function reconnectStorm(run: Run, count: number, confirmCapMs: number, probes: number): Promise<string[]> {
  const ids = await createDeviceHashes(run.redis, run.projectId, count, new Date(Date.now() - 3_600_000).toISOString());

  const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io(run.baseUrl, {
    path: '/socket.io',
    auth: { token: run.token },
    transports: ['websocket'],
    reconnection: false,
  });
  run.cleanup.add('socket.io client', async () => void socket.close());
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('connect_error', reject);
  });
  const ack = await socket.timeout(10_000).emitWithAck('subscribe', { projectId: run.projectId });
  if (!ack.success) throw new Error(`subscribe refused: ${ack.error.code}`);
  const shown = new Set<string>();
  let lastEventAt = 0;
  socket.on('device:status', (e: DeviceStatusEvent) => {
    if (e.status !== 'online' || shown.has(e.deviceId)) return;
    shown.add(e.deviceId);
    lastEventAt = Date.now();
  });

  const fleet = await connectFleet({
    url: run.backends.mqttUrl,
    username: run.backends.mqttUsername,
    password: run.backends.mqttPassword,
    count: 8,
  });
  const t0 = Date.now();
  await pool(ids, 256, (id, i) =>
    (fleet[i % fleet.length] as (typeof fleet)[number]).publishAsync(`${TOPIC_ROOT}/${id}/status`, 'online', { qos: 1 }),
  );
  const publishedMs = Date.now() - t0;
  const mirrorMs = await waitUntil(
    'storm: mirror shows every device online',
    async () => (await fields(run.redis, ids, 'status')).every((s) => s === 'online'),
    900_000,
    200,
  );
  const mirrorAt = t0 + mirrorMs;
  const probing = probeNewDevices(run, probes);
  await waitUntil('storm: device:status online for every device', async () => shown.size >= ids.length, 900_000, 100);
  const eventsMs = lastEventAt - t0;
  let confirmed = 0;
  const confirmedMs = await waitUntil(
    'storm: every twin confirmed',
    async () => {
      confirmed = (await fields(run.redis, ids, 'statusAhead')).filter((s) => s === null).length;
      return confirmed === ids.length || Date.now() - mirrorAt > confirmCapMs;
    },
    confirmCapMs + 60_000,
    500,
  );
  const probed = await probing;
  const signals = await twinSignals(run.metricsUrl, 'activity');
  await closeFleet(fleet);
  socket.close();
  const confirmedAt = mirrorAt + confirmedMs;
  const confirmation =
    confirmed === ids.length
      ? `all after ${secs(confirmedAt - t0)} (${perSecond(count, confirmedAt - t0)})`
      : `${confirmed} of ${count} after ${secs(confirmedAt - t0)} (${perSecond(confirmed, confirmedAt - t0)}; the bench stopped waiting)`;
  printRows(
    `\nReconnect storm: ${count} devices publish \`online\` at once (QoS 1, 8 connections; ONLINE_RELAY_SLOTS ${run.onlineSlots})`,
    [
      ['published', `${count} status messages in ${secs(publishedMs)}`],
      ['shown online: mirror', `all after ${secs(mirrorMs)} (${perSecond(count, mirrorMs)})`],
      [
        'shown online: device:status',
        `all ${shown.size} received at one Socket.IO client after ${secs(eventsMs)} (${perSecond(count, eventsMs)})`,
      ],
      ['baseline: twins confirmed', `${confirmation}: what the mirror showed before the write ahead (twin start + signal + mirror write)`],
      ['new devices during the storm', probed],
      [
        'gateway activity signals',
        `${signals.sent} sent, ${signals.failed} failed (deadline or Temporal error; each failed one is retried)`,
      ],
      ['worker RSS', mb(rssBytes(run.workerPid))],
    ],
  );
  return ids;
}

/** Item 3: twins on one worker up to `target` (or the time limit), RSS at each step. */
async function fleet(run: Run, already: number, target: number, limitMs: number): Promise<void> {
  const step = envInt('BENCH_FLEET_STEP', 2500);
  const rows: [string, string][] = [];
  const rss = (): string =>
    `worker RSS ${mb(rssBytes(run.workerPid))}, Temporal dev server RSS ${mb(rssBytes(run.backends.pids.temporal))}`;
  const t0 = Date.now();
  let count = already;
  let refused = '';
  rows.push([`${count} twins`, `${rss()} (cache ${run.cacheSize})`]);
  while (count < target && Date.now() - t0 < limitMs) {
    const n = Math.min(step, target - count);
    const ids = await createDeviceHashes(run.redis, run.projectId, n);
    const started = await startTwins(run.redis, run.quiet, run.projectId, ids, 3 * limitMs).catch((err: unknown) => {
      refused = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      return null;
    });
    if (!started) break;
    count += n;
    const row: [string, string] = [
      `${count} twins`,
      `${rss()}; these ${n}: start calls ${perSecond(n, started.calledMs)}, bootstrapped ${perSecond(n, started.readyMs)}`,
    ];
    rows.push(row);
    process.stdout.write(`fleet: ${row.join(': ')}\n`);
  }
  const totalMs = Date.now() - t0;
  rows.push([
    'reached',
    `${count} twins (${count - already} started in ${secs(totalMs)}, ${perSecond(count - already, totalMs)}; limit ${secs(limitMs)})`,
  ]);
  // The bench's aim is the largest fleet this Temporal takes: a start it refuses ends the phase, with its words.
  if (refused) rows.push(['Temporal refused the next starts', `${refused} (${rss()})`]);
  printRows(`\nTwins on one worker (workflow cache ${run.cacheSize})`, rows);
  if (refused) throw new Error(`the fleet phase ended at ${count} twins: Temporal refused starts (${refused})`);
}

/** Item 3: actions per online device per heartbeat period, then their heartbeat timers firing (lateness). */
async function actionsAndTimers(run: Run, devices: number, heartbeatS: number, periods: number): Promise<void> {
  const twins = createTwinClient({ client: run.client, taskQueue: TASK_QUEUE, heartbeatTimeoutS: heartbeatS, timeoutMs: 60_000 });
  const ids = await createDeviceHashes(run.redis, run.projectId, devices);
  await startTwins(run.redis, twins, run.projectId, ids, 300_000);
  const fleetClients = await connectFleet({
    url: run.backends.mqttUrl,
    username: run.backends.mqttUsername,
    password: run.backends.mqttPassword,
    count: 4,
  });
  let sent = 0;
  let sending = true;
  const publishing = (async () => {
    while (sending) {
      const tick = Date.now();
      await Promise.all(
        ids.map((id, i) =>
          (fleetClients[i % fleetClients.length] as (typeof fleetClients)[number]).publishAsync(
            `${TOPIC_ROOT}/${id}/pin/V1`,
            String(tick),
            { qos: 1 },
          ),
        ),
      );
      sent += ids.length;
      await delay(Math.max(0, 1000 - (Date.now() - tick)));
    }
  })();
  await waitUntil('value devices online', async () => (await fields(run.redis, ids, 'status')).every((s) => s === 'online'), 120_000, 200);
  await waitUntil(
    'value devices confirmed',
    async () => (await fields(run.redis, ids, 'statusAhead')).every((s) => s === null),
    120_000,
    200,
  );
  await delay(heartbeatS * 1000); // steady state: past the first watch attempt
  const sentBefore = sent;
  const w0 = Date.now();
  const atStart = await Promise.all(ids.map((id) => pendingAttempts(run.client, id)));
  await delay(periods * heartbeatS * 1000);
  const atEnd = await Promise.all(ids.map((id) => pendingAttempts(run.client, id)));
  const w1 = Date.now();
  const values = sent - sentBefore;
  sending = false;
  await publishing;
  const lastValueAt = Date.now();
  const counts = await Promise.all(
    ids.map((id, i) => actionsInWindow(run.client, id, w0, w1, atStart[i] as Map<string, number>, atEnd[i] as Map<string, number>)),
  );
  const sum = counts.reduce<ActionCount>(
    (acc, c) => Object.fromEntries(ACTION_KINDS.map((k) => [k, acc[k] + c[k]])) as unknown as ActionCount,
    { start: 0, signal: 0, update: 0, activity: 0, timer: 0, child: 0, marker: 0, retries: 0 },
  );
  const windowPeriods = (w1 - w0) / (heartbeatS * 1000);
  const per = (n: number): string => (n / devices / windowPeriods).toFixed(2);

  // Silence: each device's twin takes it offline at lastSeen + timeout; how late, with the worker's cache full of the fleet.
  const offlineMs = await waitUntil(
    'value devices offline',
    async () => (await fields(run.redis, ids, 'status')).every((s) => s === 'offline'),
    heartbeatS * 1000 + 120_000,
    200,
  );
  const [seen, changed] = await Promise.all([fields(run.redis, ids, 'lastSeen'), fields(run.redis, ids, 'statusChangedAt')]);
  const lateness = ids.map((_, i) => Date.parse(changed[i] ?? '') - (Date.parse(seen[i] ?? '') + heartbeatS * 1000));
  const late = summarize(lateness);
  await closeFleet(fleetClients);
  printRows(
    `\nTemporal actions: ${devices} online devices, 1 value/s each over MQTT, heartbeat ${heartbeatS} s, ${windowPeriods.toFixed(1)} periods`,
    [
      ['values in the window', `${values} (${(values / devices / windowPeriods).toFixed(1)} per device per period)`],
      ['actions per device per period', `${per(total(sum))} (${ACTION_KINDS.map((k) => `${k} ${per(sum[k])}`).join(', ')})`],
      [
        'actions per value',
        `${((sum.signal + sum.update) / Math.max(1, values)).toFixed(4)} caused by values (signals, Updates); ` +
          `all actions / values ${(total(sum) / Math.max(1, values)).toFixed(4)}, the watch's being per period whatever the value rate`,
      ],
      [
        'heartbeat timers (lateness)',
        `offline at lastSeen + ${heartbeatS} s: p50 ${late.p50.toFixed(0)} ms, p99 ${late.p99.toFixed(0)} ms, max ${late.max.toFixed(0)} ms (all ${devices} offline ${secs(lastValueAt + offlineMs - lastValueAt)} after the last value)`,
      ],
    ],
  );
}

/**
 * Issue 35 item 4: one device publishing `online` and `info` `count` times each within
 * `spreadMs`, and the Temporal actions its twin takes for them (from its history), beside what
 * one signal per message would be.
 */
async function flood(run: Run, count: number, spreadMs: number): Promise<void> {
  const [id] = await createDeviceHashes(run.redis, run.projectId, 1);
  const deviceId = id as string;
  await startTwins(run.redis, run.quiet, run.projectId, [deviceId], 60_000);
  const [client] = await connectFleet({
    url: run.backends.mqttUrl,
    username: run.backends.mqttUsername,
    password: run.backends.mqttPassword,
    count: 1,
  });
  const publisher = client as NonNullable<typeof client>;
  await publisher.publishAsync(`${TOPIC_ROOT}/${deviceId}/status`, 'online', { qos: 1 });
  await waitUntil('flood device online', async () => (await fields(run.redis, [deviceId], 'status'))[0] === 'online', 60_000);
  await waitUntil('flood device confirmed', async () => (await fields(run.redis, [deviceId], 'statusAhead'))[0] === null, 60_000);
  await delay(2000);
  const w0 = Date.now();
  const atStart = await pendingAttempts(run.client, deviceId);
  const last = `9.9.${count - 1}`;
  for (let i = 0; i < count; i++) {
    await Promise.all([
      publisher.publishAsync(`${TOPIC_ROOT}/${deviceId}/status`, 'online', { qos: 1 }),
      publisher.publishAsync(`${TOPIC_ROOT}/${deviceId}/info`, JSON.stringify({ firmwareVersion: `9.9.${i}` }), { qos: 1 }),
    ]);
    await delay(Math.max(0, w0 + ((i + 1) * spreadMs) / count - Date.now()));
  }
  const sentMs = Date.now() - w0;
  const shownMs = await waitUntil(
    'last info shown',
    async () => (await fields(run.redis, [deviceId], 'firmwareVersion'))[0] === last,
    60_000,
  );
  await delay(3000);
  const w1 = Date.now();
  const counts = await actionsInWindow(run.client, deviceId, w0, w1, atStart, await pendingAttempts(run.client, deviceId));
  await closeFleet([publisher]);
  printRows(`\nFlood: one device, ${count} online + ${count} info messages in ${secs(sentMs)}`, [
    [
      'Temporal actions of its twin',
      `${total(counts)} (${ACTION_KINDS.map((k) => `${k} ${counts[k]}`).join(', ')}); one signal per message would be ${2 * count}`,
    ],
    ['last info shown', `${secs(shownMs)} after the last message`],
  ]);
}

async function bench(cleanup: Cleanup): Promise<void> {
  const stormCount = envInt('BENCH_STORM', 10_000);
  const fleetTarget = envInt('BENCH_FLEET', 100_000);
  const fleetLimitMs = envInt('BENCH_FLEET_LIMIT_S', 600) * 1000;
  const valueDevices = envInt('BENCH_VALUE_DEVICES', 20);
  const heartbeatS = envInt('BENCH_HEARTBEAT_S', 10);
  const periods = envInt('BENCH_VALUE_PERIODS', 6);
  const cacheSize = envInt('WORKER_MAX_CACHED_WORKFLOWS', 1000);
  const onlineSlots = envInt('ONLINE_RELAY_SLOTS', 32);
  const phases = new Set((process.env.BENCH_PHASES ?? 'locks,storm,fleet,actions,flood').split(',').map((p) => p.trim()));
  process.stdout.write(`${machineLine()}\n`);

  const backends = await startBackends(cleanup);
  const worker = await startWorker(backends, cleanup, { WORKER_MAX_CACHED_WORKFLOWS: String(cacheSize), MQTT_TOPIC_ROOT: TOPIC_ROOT });
  const gateway = await startService(
    backends,
    cleanup,
    {
      MQTT_TOPIC_ROOT: TOPIC_ROOT,
      NODE_ID: 'bench-twins',
      CREDENTIAL_KEY: randomBytes(32).toString('hex'),
      DEVICE_HEARTBEAT_TIMEOUT_S: String(QUIET_HEARTBEAT_S),
      ONLINE_RELAY_SLOTS: String(onlineSlots),
    },
    gatewayNode('gateway'),
  );
  const redis = createRedis({ REDIS_URL: backends.redisUrl }, 'bench-twins');
  cleanup.add('redis', async () => void (await redis.quit()));
  const connection = await Connection.connect({ address: backends.temporalAddress });
  cleanup.add('client connection', () => connection.close());
  const client = new Client({ connection });
  const quiet = createTwinClient({
    client,
    taskQueue: TASK_QUEUE,
    heartbeatTimeoutS: QUIET_HEARTBEAT_S,
    timeoutMs: 60_000,
    sendTimeoutMs: 60_000,
  });
  const account = await createAccount(gateway.baseUrl);
  const run: Run = {
    backends,
    cleanup,
    redis,
    client,
    quiet,
    baseUrl: gateway.baseUrl,
    metricsUrl: gateway.metricsUrl,
    account,
    token: account.token,
    projectId: account.projectId,
    workerPid: worker.pid,
    cacheSize,
    onlineSlots,
  };
  process.stdout.write(`worker RSS at start: ${mb(rssBytes(worker.pid))}\n`);

  if (phases.has('locks')) await locks(run, envInt('BENCH_LOCKS', 300));
  const storm = phases.has('storm')
    ? await reconnectStorm(run, stormCount, envInt('BENCH_CONFIRM_LIMIT_S', 600) * 1000, envInt('BENCH_STORM_PROBES', 2))
    : [];
  if (phases.has('fleet')) await fleet(run, storm.length, fleetTarget, fleetLimitMs);
  if (phases.has('actions')) await actionsAndTimers(run, valueDevices, heartbeatS, periods);
  if (phases.has('flood')) await flood(run, envInt('BENCH_FLOOD', 1000), envInt('BENCH_FLOOD_MS', 5000));
}

void runBench('twins', bench);
