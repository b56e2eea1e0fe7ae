/**
 * Simple-interface bench (issue 6): sustained requests/s and latency of GET /external/api/update
 * on one gateway-only node (its own process, the twin worker in another; rate limits raised with
 * RATE_LIMIT_MULTIPLIER) for an online device, beside a bare Express handler doing the same Redis
 * write (its own process too).
 * A closed loop of BENCH_CONCURRENCY clients (default 32) runs BENCH_SECONDS (default 10) against
 * each, after a short warm-up, in BENCH_ROUNDS (default 5) alternating slices (service, baseline,
 * service, ...), so load from elsewhere on the machine that comes and goes weighs on both sides
 * alike. Prints figures only.
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectAsync } from 'mqtt';
import { freePort } from '../scripts/dev-servers';
import { createAccount } from './support/api';
import { startBackends } from './support/backends';
import { runBench, type Cleanup } from './support/cleanup';
import { cpuSeconds } from './support/cpu';
import { envInt } from './support/env';
import { gatewayNode, profileFlags, startService, startWorker } from './support/service-process';
import { latencyLine, printRows, ratio, summarize, type Summary } from './support/stats';

const WARMUP_SECONDS = 2;
/** The twin worker bundles its workflows when the service starts; the first status can wait for it. */
const ONLINE_TIMEOUT_MS = 120_000;

interface LoadResult {
  ok: number;
  failed: number;
  seconds: number;
  latency: Summary;
  /** Each measured process's share of one core over the measured slices, in percent. */
  cpu: Record<string, number>;
  /** Requests answered 200 per second in each slice. */
  sliceRates: number[];
}

/** One GET; resolves with its status once the whole body has arrived. */
function request(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
      res.once('error', reject);
    }).once('error', reject);
  });
}

interface Slice {
  latencies: number[];
  failed: number;
  seconds: number;
}

/** A closed loop: `concurrency` clients each send the next request as soon as the last is answered. */
async function drive(agent: Agent, urlOf: (n: number) => string, concurrency: number, seconds: number): Promise<Slice> {
  const latencies: number[] = [];
  let failed = 0;
  let n = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  const lane = async (): Promise<void> => {
    while (performance.now() < until) {
      const t0 = performance.now();
      const status = await request(agent, urlOf(n++)).catch(() => 0);
      if (status === 200) latencies.push(performance.now() - t0);
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { latencies, failed, seconds: (performance.now() - started) / 1000 };
}

/** One side of the comparison: its URLs, its processes, and its own keep-alive agent (the same settings on both sides). */
interface Side {
  urlOf: (n: number) => string;
  pids: Record<string, number>;
  agent: Agent;
  slices: Slice[];
  cpu: Record<string, number>;
}

function side(urlOf: (n: number) => string, pids: Record<string, number>, concurrency: number): Side {
  return { urlOf, pids, agent: new Agent({ keepAlive: true, maxSockets: concurrency }), slices: [], cpu: {} };
}

/** One measured slice of a side: its requests, and the CPU seconds its processes used meanwhile. */
async function measureSlice(target: Side, concurrency: number, seconds: number): Promise<void> {
  const before = Object.fromEntries(Object.entries(target.pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  target.slices.push(await drive(target.agent, target.urlOf, concurrency, seconds));
  for (const [name, pid] of Object.entries(target.pids))
    target.cpu[name] = (target.cpu[name] ?? 0) + cpuSeconds(pid) - (before[name] ?? NaN);
}

function resultOf(target: Side): LoadResult {
  const seconds = target.slices.reduce((sum, s) => sum + s.seconds, 0);
  const latencies = target.slices.flatMap((s) => s.latencies);
  return {
    ok: latencies.length,
    failed: target.slices.reduce((sum, s) => sum + s.failed, 0),
    seconds,
    latency: summarize(latencies),
    cpu: Object.fromEntries(Object.entries(target.cpu).map(([name, used]) => [name, (used / seconds) * 100])),
    sliceRates: target.slices.map((s) => s.latencies.length / s.seconds),
  };
}

/**
 * Warms both sides up, then measures them in `rounds` alternating slices of `seconds / rounds`
 * each: service, baseline, service, ... Each side keeps its keep-alive connections across slices.
 */
async function compare(
  service: Side,
  baseline: Side,
  concurrency: number,
  seconds: number,
  rounds: number,
): Promise<[LoadResult, LoadResult]> {
  await drive(service.agent, service.urlOf, concurrency, WARMUP_SECONDS);
  await drive(baseline.agent, baseline.urlOf, concurrency, WARMUP_SECONDS);
  for (let round = 0; round < rounds; round += 1) {
    await measureSlice(service, concurrency, seconds / rounds);
    await measureSlice(baseline, concurrency, seconds / rounds);
  }
  service.agent.destroy();
  baseline.agent.destroy();
  return [resultOf(service), resultOf(baseline)];
}

/** The bare Express baseline in its own process; resolves with its base URL once it listens. */
async function startBaselineServer(redisUrl: string, cleanup: Cleanup): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  const child = fork(join(__dirname, 'simple-update-baseline.js'), [], {
    execArgv: profileFlags(),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { PATH: process.env.PATH ?? '', REDIS_URL: redisUrl, BASELINE_PORT: String(port) },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanup.add('simple baseline', async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`baseline exited (${code}) before listening`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid as number };
}

/** % of one core per 1,000 requests/s of the processes `names` of a run. */
const cpuPerThousand = (result: LoadResult, names: string[]): number =>
  (names.reduce((sum, name) => sum + (result.cpu[name] ?? NaN), 0) * 1000) / (result.ok / result.seconds);

function rows(result: LoadResult, own: string[]): [string, string][] {
  return [
    ['requests answered 200', `${result.ok} in ${result.seconds.toFixed(1)} s${result.failed ? ` (${result.failed} failed)` : ''}`],
    ['sustained', `${(result.ok / result.seconds).toFixed(0)} req/s`],
    ['latency', latencyLine(result.latency)],
    [
      'CPU, % of one core',
      Object.entries(result.cpu)
        .map(([name, share]) => `${name} ${Math.round(share)}%`)
        .join(', '),
    ],
    [`${own.join(' + ')} per 1,000 req/s`, `${cpuPerThousand(result, own).toFixed(0)}% of a core`],
  ];
}

void runBench('simple-update', async (cleanup) => {
  const seconds = envInt('BENCH_SECONDS', 10);
  const concurrency = envInt('BENCH_CONCURRENCY', 32);
  const rounds = envInt('BENCH_ROUNDS', 5);
  const backends = await startBackends(cleanup);
  // A gateway-only node and a separate twin worker (issue 14): in one process the worker's
  // async-context tracking taxes every request of the gateway.
  const worker = await startWorker(backends, cleanup, { DEVICE_HEARTBEAT_TIMEOUT_S: '3600' });
  const service = await startService(
    backends,
    cleanup,
    {
      DEFAULT_PLAN: 'pro',
      RATE_LIMIT_MULTIPLIER: '1000000',
      DEVICE_HEARTBEAT_TIMEOUT_S: '3600',
      NODE_ID: 'bench-simple-gw',
      CREDENTIAL_KEY: randomBytes(32).toString('hex'),
    },
    gatewayNode('gateway'),
  );

  const account = await createAccount(service.baseUrl);
  const device = await account.call<{ id: string }>('POST', '/api/v1/devices', { name: 'bench', projectId: account.projectId });
  const { token } = await account.call<{ token: string }>('PUT', `/api/v1/devices/${device.id}/simple-api`, { enabled: true });

  // The device reports online (the service account stands for it: the bench does not provision
  // broker credentials), so every update is published to it at once, the interface's main path.
  const mqtt = await connectAsync(backends.mqttUrl, {
    username: backends.mqttUsername,
    password: backends.mqttPassword,
    reconnectPeriod: 0,
  });
  cleanup.add('device connection', () => mqtt.endAsync());
  await mqtt.publishAsync(`dds/${device.id}/status`, 'online', { qos: 1, retain: true });
  const deadline = Date.now() + ONLINE_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(`${service.baseUrl}/external/api/is-online?token=${token}`);
    if (((await res.json()) as { isOnline?: boolean }).isOnline === true) break;
    if (Date.now() > deadline) throw new Error(`device not online after ${ONLINE_TIMEOUT_MS} ms (see ${service.logFile})`);
    await new Promise((r) => setTimeout(r, 200));
  }

  const baseline = await startBaselineServer(backends.redisUrl, cleanup);
  const baselineDevice = randomUUID();
  const [serviceResult, baselineResult] = await compare(
    side(
      (n) => `${service.baseUrl}/external/api/update?token=${token}&pin=V1&value=${n}`,
      { gateway: service.pid, worker: worker.pid, ...backends.pids, bench: process.pid },
      concurrency,
    ),
    side(
      (n) => `${baseline.url}/update?device=${baselineDevice}&pin=V1&value=${n}`,
      { baseline: baseline.pid, ...backends.pids, bench: process.pid },
      concurrency,
    ),
    concurrency,
    seconds,
    rounds,
  );

  process.stdout.write(
    `\nsimple-update bench: ${concurrency} concurrent clients, ${seconds} s each after ${WARMUP_SECONDS} s warm-up, in ${rounds} alternating slices of ${(seconds / rounds).toFixed(1)} s\n`,
  );
  printRows(
    `\nservice: GET /external/api/update (auth, rate limit, ingest, MQTT publish to the online device; gateway pid ${service.pid}, worker pid ${worker.pid})`,
    rows(serviceResult, ['gateway', 'worker']),
  );
  printRows(
    "\nbaseline: bare Express handler, same Redis write (latest + history point, one MULTI; the service's gateway also moves its history to PostgreSQL)",
    rows(baselineResult, ['baseline']),
  );
  printRows('\nservice / baseline', [
    ['throughput', ratio(serviceResult.ok / serviceResult.seconds, baselineResult.ok / baselineResult.seconds)],
    ['p50 latency', ratio(serviceResult.latency.p50, baselineResult.latency.p50)],
    ['p99 latency', ratio(serviceResult.latency.p99, baselineResult.latency.p99)],
    ['CPU per request', ratio(cpuPerThousand(serviceResult, ['gateway', 'worker']), cpuPerThousand(baselineResult, ['baseline']))],
    ['throughput, slice by slice', serviceResult.sliceRates.map((rate, i) => ratio(rate, baselineResult.sliceRates[i] ?? NaN)).join(' ')],
  ]);
  process.stdout.write('targets (issue 14): throughput ≥ 0.7×, p99 latency ≤ 2×\n');
});
