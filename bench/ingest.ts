/**
 * Ingest bench (issues 4, 14): N simulated devices publish over MQTT at a fixed total rate; a
 * gateway-only node (dist/gateway/main.js) stores every value and fans it out to a Socket.IO
 * client, with the twin worker in its own process. Then the same load drives a bare subscriber
 * doing the same Redis writes, as a baseline, and both are measured at rest (connected, nothing
 * sent: the CPU that is not the values'). Then (issue 14) both are driven up a ladder of
 * rates to the highest each holds with nothing lost and p99 ≤ 250 ms, and the service is measured
 * at half the baseline's; the targets are printed as ratios to the baseline of the same run.
 * Then (issue 12, unless BENCH_OVERLOAD=0) the node is driven above the rate it can store, once on
 * the project's broker config and once on a broker with Mosquitto's default queue. Prints figures only.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { MqttClient } from 'mqtt';
import { MAX_QUEUED_MESSAGES, startMosquitto } from '../scripts/dev-servers';
import { createAccount, createDevices } from './support/api';
import { startBackends, type Backends } from './support/backends';
import { startBaseline, type BaselineProcess } from './support/baseline-process';
import { baselineHistoryKey } from './support/baseline-protocol';
import { watchBrokerDrops, type BrokerDrops } from './support/broker-sys';
import { runBench, type Cleanup } from './support/cleanup';
import { cpuMeter, waitForQuiet } from './support/cpu';
import { machineCpuMeter } from './support/machine-cpu';
import { envInt } from './support/env';
import { countOnline, countPoints, countStoredPoints, readStoredPoints } from './support/history';
import { historyMemoryPhase } from './support/history-memory';
import { createPgPool, type Pool } from '../store/pg/pool';
import { summarizeBrokerLog, summarizeLog } from './support/log-summary';
import { machineLine } from './support/machine';
import { closeFleet, connectFleet } from './support/mqtt-fleet';
import { overloadPhase, type OverloadResult } from './support/overload';
import { publishPaced, type PublishOutcome } from './support/paced-publish';
import { probe } from './support/probe';
import { bridgeCounters, gcPauses, gcPausesLine } from './support/service-metrics';
import { gatewayNode, startService, startWorker, type ServiceProcess, type WorkerProcess } from './support/service-process';
import { settle } from './support/settle';
import { watchProjectUpdates } from './support/socket-updates';
import {
  latencyLine,
  p99BySecond,
  printRows,
  ratePerSecond,
  ratio,
  secondHalf,
  summarize,
  type Sample,
  type Summary,
} from './support/stats';

const SERVICE_ROOT = 'dds';
const BASELINE_ROOT = 'dds-baseline';
const PIN = 'V1';
/** The warm-up's pin: devices' first values wake their twins (Temporal work), paid before measuring. */
const WARM_UP_PIN = 'V2';
/** Pins of the runs above saturation, one each so each counts only its own values. */
const OVERLOAD_PINS = { calibration: 'V7', project: 'V8', mosquittoDefault: 'V9' } as const;
/** The service at half the baseline's highest held rate. */
const HALF_RATE_PIN = 'V10';
/** The ladders' pins: step i of a ladder on V(20 + i); the baseline's keys are apart from the service's. */
const ladderPin = (step: number): string => `V${20 + step}`;
/** What "holds a rate" means (issue 14): nothing lost and p99 publish → update at most this. */
const HELD_P99_MS = 250;
/** The twins' heartbeat timeout: longer than the bench, so no twin's timer loads Temporal in one phase and not another. */
const HEARTBEAT_TIMEOUT_S = 3600;

interface Run {
  backends: Backends;
  /** The project broker's own dropped-messages count, followed from its start. */
  brokerDrops: BrokerDrops;
  redis: Redis;
  /** The service's history database, to count what was persisted. */
  pool: Pool;
  worker: WorkerProcess;
  credentialKey: string;
  fleet: MqttClient[];
  deviceIds: string[];
  account: { token: string; projectId: string };
  rate: number;
  seconds: number;
  cleanup: Cleanup;
}

/** One load at one rate on one pin, as the service or the baseline took it. */
interface PhaseResult {
  rate: number;
  published: PublishOutcome;
  stored: number;
  throughput: number;
  latency: Summary;
  /** Latency of the messages sent in the second half of the run. */
  settled: Summary;
  /** The processes doing the work (gateway + worker, or the baseline subscriber), % of one core. */
  cpu: number;
  /** The whole machine (broker, Redis, the bench's publishers and client, everything), % of one core. */
  machine: number;
}

/** The machine's cores: a ladder step shows how much of them the whole machine used. */
const CORES = availableParallelism();

const lost = (r: PhaseResult): number => r.published.acked - r.stored;
const holds = (r: PhaseResult): boolean => r.published.acked > 0 && lost(r) === 0 && r.latency.p99 <= HELD_P99_MS;
/** % of one core per 1,000 values/s stored. */
const cpuPerThousand = (r: PhaseResult): number => (r.cpu * 1000) / r.throughput;

function latencyRows(label: string, samples: readonly Sample[]): [string, string][] {
  return [
    [label, latencyLine(summarize(samples.map((s) => s.latency)))],
    ['  sent in the second half', latencyLine(summarize(secondHalf(samples)))],
    [
      '  p99 of each second sent (ms)',
      p99BySecond(samples)
        .map((p99) => p99.toFixed(0))
        .join(' '),
    ],
  ];
}

function publishedRow(outcome: PublishOutcome): [string, string] {
  const problems = [outcome.failed && `${outcome.failed} failed`, outcome.unanswered && `${outcome.unanswered} unanswered`];
  const note = problems.filter(Boolean).join(', ');
  return [
    'messages published',
    `${outcome.acked} acked of ${outcome.attempted} in ${outcome.seconds.toFixed(1)} s${note ? ` (${note})` : ''}`,
  ];
}

function countRow(label: string, got: number, expected: number, unit = ''): [string, string] {
  return [label, `${got}${unit}${got < expected ? ` (${expected - got} missing)` : ''}`];
}

/**
 * Load at `rate` for BENCH_PHASE_WARMUP_S (2) on the warm-up pin, not measured, then a second's
 * rest: a phase then measures the steady state at its rate, not a node (or the baseline) coming
 * out of the idle gap before it, whose first second was 5–10× its p99 in every phase on both sides.
 */
async function warmUp(run: Run, root: string, rate: number): Promise<void> {
  const seconds = envInt('BENCH_PHASE_WARMUP_S', 2);
  if (seconds === 0) return;
  await publishPaced(
    run.fleet,
    run.deviceIds.map((id) => `${root}/${id}/pin/${WARM_UP_PIN}`),
    rate,
    seconds,
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

/** The service (gateway + worker processes) taking `rate` values a second on `pin`; `verbose` prints every figure. */
async function servicePhase(
  run: Run,
  service: ServiceProcess,
  pin: string,
  rate: number,
  seconds: number,
  verbose: boolean,
): Promise<PhaseResult> {
  await warmUp(run, SERVICE_ROOT, rate);
  const updates = await watchProjectUpdates(service.baseUrl, run.account.token, run.account.projectId);
  run.cleanup.add('socket.io client', async () => updates.close());
  const pids = { gateway: service.pid, worker: run.worker.pid };
  const cpu = cpuMeter({ ...pids, ...run.backends.pids, bench: process.pid });
  const machine = machineCpuMeter();
  const health = probe(`${service.baseUrl}/healthz`);
  const bridgeBefore = await bridgeCounters(service.metricsUrl);
  const gcBefore = await gcPauses(service.metricsUrl);
  const topics = run.deviceIds.map((id) => `${SERVICE_ROOT}/${id}/pin/${pin}`);
  const outcome = await publishPaced(run.fleet, topics, rate, seconds);
  const healthz = await health.stop();
  const stored = await settle(() => countStoredPoints(run.pool, run.deviceIds, pin), outcome.acked);
  const received = await settle(() => updates.samples.length, outcome.acked);
  const shares = cpu.shares();
  const machineShare = machine.since();
  updates.close();

  const points = await readStoredPoints(run.pool, run.deviceIds, pin);
  const throughput = ratePerSecond(points.map((p) => p.storedAt));
  const result: PhaseResult = {
    rate,
    published: outcome,
    stored,
    throughput,
    latency: summarize(updates.samples.map((s) => s.latency)),
    settled: summarize(secondHalf(updates.samples)),
    cpu: (shares.gateway ?? NaN) + (shares.worker ?? NaN),
    machine: machineShare,
  };
  if (!verbose) return result;
  const ingestSamples = points.map((p): Sample => ({ sentAt: Number(p.value), latency: p.storedAt - Number(p.value) }));
  const bridge = await bridgeCounters(service.metricsUrl);
  const gc = gcPausesLine(gcBefore, await gcPauses(service.metricsUrl));
  printRows(
    `\nservice: gateway-only node (dist/gateway/main.js, pid ${service.pid}) + twin worker (pid ${run.worker.pid}), ${rate} values/s on ${pin}`,
    [
      publishedRow(outcome),
      [
        'handled by the MQTT bridge',
        `${bridge.handled - bridgeBefore.handled} (dropped as invalid: ${bridge.dropped - bridgeBefore.dropped})`,
      ],
      countRow('messages stored', stored, outcome.acked, ' history points'),
      ['sustained stored', `${throughput.toFixed(0)} msgs/s`],
      ...latencyRows('publish → ingest start', ingestSamples),
      ...latencyRows('publish → pin:update', updates.samples),
      countRow('updates received', received, outcome.acked),
      ['GET /healthz meanwhile', latencyLine(healthz)],
      ['devices online, twin confirmed', `${await countOnline(run.redis, run.deviceIds)} of ${run.deviceIds.length}`],
      [
        'CPU, % of one core',
        Object.entries(shares)
          .map(([name, share]) => `${name} ${Math.round(share)}%`)
          .join(', '),
      ],
      ['gateway + worker per 1,000 values/s', `${cpuPerThousand(result).toFixed(1)}% of a core`],
      ['gateway GC pauses (V8)', gc],
    ],
  );
  return result;
}

/** The baseline subscriber taking `rate` values a second on `pin`; its report is cumulative, so only what this run added counts. */
async function baselinePhase(
  run: Run,
  baseline: BaselineProcess,
  pin: string,
  rate: number,
  seconds: number,
  verbose: boolean,
): Promise<PhaseResult> {
  await warmUp(run, BASELINE_ROOT, rate);
  const before = await baseline.report();
  const cpu = cpuMeter({ baseline: baseline.pid, ...run.backends.pids, bench: process.pid });
  const machine = machineCpuMeter();
  const topics = run.deviceIds.map((id) => `${BASELINE_ROOT}/${id}/pin/${pin}`);
  const outcome = await publishPaced(run.fleet, topics, rate, seconds);
  const historyKeys = run.deviceIds.map((id) => baselineHistoryKey(id, pin));
  const stored = await settle(() => countPoints(run.redis, historyKeys), outcome.acked);
  const shares = cpu.shares();
  const machineShare = machine.since();
  const report = await baseline.report();
  const latencies = report.latencies.slice(before.latencies.length);
  const ackTimes = report.ackTimes.slice(before.ackTimes.length);
  const samples = latencies.map((latency, i): Sample => ({ sentAt: (ackTimes[i] ?? NaN) - latency, latency }));
  const result: PhaseResult = {
    rate,
    published: outcome,
    stored,
    throughput: ratePerSecond(ackTimes),
    latency: summarize(latencies),
    settled: summarize(secondHalf(samples)),
    cpu: shares.baseline ?? NaN,
    machine: machineShare,
  };
  if (!verbose) return result;
  printRows(`\nbaseline: bare mqtt.js subscriber + one Redis pipeline per message (pid ${baseline.pid}), ${rate} values/s on ${pin}`, [
    publishedRow(outcome),
    countRow('messages stored', stored, outcome.acked, ' history points'),
    ['write errors', String(report.failed - before.failed)],
    ['sustained stored', `${result.throughput.toFixed(0)} msgs/s`],
    ...latencyRows('publish → write acked', samples),
    [
      'CPU, % of one core',
      Object.entries(shares)
        .map(([name, share]) => `${name} ${Math.round(share)}%`)
        .join(', '),
    ],
    ['baseline per 1,000 values/s', `${cpuPerThousand(result).toFixed(1)}% of a core`],
  ]);
  return result;
}

/**
 * Raises the rate by BENCH_LADDER_FACTOR from `start` (BENCH_LADDER_STEPS at most, BENCH_STEP_SECONDS
 * each, a pin per step) until a step does not hold (something lost, or p99 above HELD_P99_MS).
 * Then, BENCH_LADDER_REFINE times (2), it halves the gap between the last rate held and the first
 * not held (the geometric mean of the two), after `rest` has let the servers go quiet: with
 * steps ×1.4 apart a held rate read off the ladder alone may be up to 40 % below the real one.
 * Returns every step; the held rate is the highest that held. A step whose publisher fell behind
 * its schedule says so: then the bench's own publisher, not the subscriber, bounds the figure.
 */
async function ladder(
  label: string,
  start: number,
  step: (pin: string, rate: number, seconds: number) => Promise<PhaseResult>,
  rest: () => Promise<void>,
): Promise<PhaseResult[]> {
  const factor = Number(process.env.BENCH_LADDER_FACTOR ?? '1.4');
  const steps = envInt('BENCH_LADDER_STEPS', 10);
  const refinements = envInt('BENCH_LADDER_REFINE', 2);
  const seconds = envInt('BENCH_STEP_SECONDS', 8);
  const results: PhaseResult[] = [];
  const measure = async (pin: string, rate: number): Promise<PhaseResult> => {
    const r = await step(pin, rate, seconds);
    results.push(r);
    const behind = r.published.seconds > seconds * 1.1 ? ` (publisher behind: ${r.published.seconds.toFixed(1)} s)` : '';
    process.stdout.write(
      `  ${String(rate).padStart(6)}/s offered: stored ${r.stored}/${r.published.acked} (${r.throughput.toFixed(0)}/s), ` +
        `p50 ${r.latency.p50} ms p99 ${r.latency.p99} ms, CPU ${Math.round(r.cpu)}% (machine ${Math.round(r.machine)}% of ${CORES * 100}%) ${holds(r) ? 'holds' : 'does not hold'}${behind}\n`,
    );
    return r;
  };
  process.stdout.write(
    `\n--- ${label}: rates ×${factor} from ${start}/s, ${seconds} s each, until one does not hold (lost > 0 or p99 > ${HELD_P99_MS} ms) ---\n`,
  );
  let held = 0;
  let failed = 0;
  for (let i = 0; i < steps && failed === 0; i += 1) {
    const rate = Math.round(start * factor ** i);
    if (holds(await measure(ladderPin(i), rate))) held = rate;
    else failed = rate;
  }
  for (let k = 0; k < refinements && failed > 0 && held > 0; k += 1) {
    const rate = Math.round(Math.sqrt(held * failed));
    if (rate <= held || rate >= failed) break;
    await rest();
    process.stdout.write(`  (between ${held}/s held and ${failed}/s not held, after the servers went quiet)\n`);
    if (holds(await measure(ladderPin(steps + k), rate))) held = rate;
    else failed = rate;
  }
  return results;
}

const heldRate = (steps: readonly PhaseResult[]): number => Math.max(0, ...steps.filter(holds).map((r) => r.rate));

/** The servers together under this share of one core over a second count as quiet before a measured part. */
const QUIET_PERCENT = 20;
/** The worker is at rest once under this share of a core (at rest it reads 0–0.1 %) ... */
const WORKER_QUIET_PERCENT = 3;
/**
 * ... for this many seconds in a row: longer than V8's memory reducer took to start its GCs after
 * the wake-up's last allocations (35–41 s in --trace-gc logs of the worker, once per isolate).
 */
const WORKER_QUIET_SECONDS = 45;
/** How long the bench waits for the worker to be at rest before measuring anyway. */
const WORKER_QUIET_CAP_MS = 150_000;
/** How long the bench waits for quiet before measuring anyway. */
const QUIET_CAP_MS = 60_000;

/** How long the bench waits for every device's twin to show it online before measuring anyway. */
const WAKE_CAP_MS = 180_000;
/** A device's value wakes its twin at most once per this (the gateway's wake marker, 30 s), so a burst is repeated after it. */
const WAKE_RETRY_MS = 32_000;

/**
 * Every device's first value wakes its twin (Temporal work, and a busy Temporal may miss some
 * signals): paid here, before anything is measured, so no phase carries another's twin starts.
 * One value per device, repeated while some devices are not online yet; resolves with how many are.
 */
async function wakeTwins(run: Run, service: ServiceProcess): Promise<number> {
  const deadline = Date.now() + WAKE_CAP_MS;
  let online = 0;
  for (let burst = Date.now(); Date.now() < deadline; ) {
    await servicePhase(
      run,
      service,
      WARM_UP_PIN,
      Math.round(run.rate / 2),
      Math.max(1, Math.ceil((2 * run.deviceIds.length) / run.rate)),
      false,
    );
    while ((online = await countOnline(run.redis, run.deviceIds)) < run.deviceIds.length && Date.now() - burst < WAKE_RETRY_MS) {
      await new Promise((r) => setTimeout(r, 1000));
    }
    if (online === run.deviceIds.length) break;
    burst = Date.now();
  }
  return online;
}

/** A gateway-only node with its own NODE_ID on `backends`. */
function startGateway(backends: Backends, run: Pick<Run, 'cleanup' | 'credentialKey'>, nodeId: string): Promise<ServiceProcess> {
  return startService(
    backends,
    run.cleanup,
    {
      MQTT_TOPIC_ROOT: SERVICE_ROOT,
      NODE_ID: nodeId,
      CREDENTIAL_KEY: run.credentialKey,
      DEVICE_HEARTBEAT_TIMEOUT_S: String(HEARTBEAT_TIMEOUT_S),
      // BENCH_INGEST_CONNECTIONS and BENCH_INGEST_IN_FLIGHT: the node's in-flight window (MQTT_INGEST_CONNECTIONS ×
      // MQTT_INGEST_IN_FLIGHT); unset, the gateway's defaults.
      ...(process.env.BENCH_INGEST_CONNECTIONS ? { MQTT_INGEST_CONNECTIONS: process.env.BENCH_INGEST_CONNECTIONS } : {}),
      ...(process.env.BENCH_INGEST_IN_FLIGHT ? { MQTT_INGEST_IN_FLIGHT: process.env.BENCH_INGEST_IN_FLIGHT } : {}),
      // BENCH_INGEST_LINGER_MS: the gateway's INGEST_LINGER_MS; unset, its default.
      ...(process.env.BENCH_INGEST_LINGER_MS ? { INGEST_LINGER_MS: process.env.BENCH_INGEST_LINGER_MS } : {}),
    },
    gatewayNode(nodeId),
  );
}

interface Overload {
  rate: number;
  seconds: number;
  project: OverloadResult;
}

/**
 * Above saturation on the project's broker config: a short flood finds the rate the node stores
 * (it is behind throughout), then `factor` times that rate for `seconds`.
 */
async function overloadProjectBroker(run: Run, service: ServiceProcess): Promise<Overload> {
  const factor = envInt('BENCH_OVERLOAD_FACTOR', 3);
  const seconds = envInt('BENCH_OVERLOAD_SECONDS', 10);
  process.stdout.write(`\n--- above saturation: one node, ${factor}× the rate it stores, ${seconds} s ---\n`);
  const common = {
    service,
    fleet: run.fleet,
    pool: run.pool,
    deviceIds: run.deviceIds,
    topicRoot: SERVICE_ROOT,
    brokerDrops: run.brokerDrops,
  };
  const calibration = await overloadPhase({
    ...common,
    label: 'calibration flood (project broker config)',
    pin: OVERLOAD_PINS.calibration,
    rate: run.rate * 4,
    seconds: 5,
  });
  const rate = Math.round(calibration.storedRate * factor);
  const project = await overloadPhase({
    ...common,
    label: `project broker config (max_queued_messages ${MAX_QUEUED_MESSAGES} per client)`,
    pin: OVERLOAD_PINS.project,
    rate,
    seconds,
  });
  return { rate, seconds, project };
}

/** The same load on a fresh broker with Mosquitto's default queue and a fresh gateway on it (same Redis, Temporal and worker). */
async function overloadDefaultBroker(run: Run, overload: Overload): Promise<OverloadResult> {
  const dir = await mkdtemp(join(run.backends.dir, 'default-queue-'));
  const broker = await startMosquitto({ dir, maxQueuedMessages: null });
  run.cleanup.add('mosquitto (default queue)', () => broker.stop());
  const brokerDrops = await watchBrokerDrops(broker.url, broker.serviceUsername, broker.servicePassword);
  run.cleanup.add('broker $SYS watcher (default queue)', () => brokerDrops.close());
  const backends: Backends = {
    ...run.backends,
    mqttUrl: broker.url,
    mqttUsername: broker.serviceUsername,
    mqttPassword: broker.servicePassword,
    pids: { ...run.backends.pids, mosquitto: broker.pid },
  };
  const service = await startGateway(backends, run, 'bench-ingest-default-queue');
  const fleet = await connectFleet({
    url: broker.url,
    username: broker.serviceUsername,
    password: broker.servicePassword,
    count: run.deviceIds.length,
  });
  run.cleanup.add('mqtt fleet (default-queue broker)', () => closeFleet(fleet));
  await waitForQuiet([service.pid, run.worker.pid, backends.pids.temporal], 15, 30_000);
  const result = await overloadPhase({
    label: "Mosquitto's default queue (max_queued_messages 1000 per client)",
    service,
    fleet,
    pool: run.pool,
    deviceIds: run.deviceIds,
    topicRoot: SERVICE_ROOT,
    pin: OVERLOAD_PINS.mosquittoDefault,
    rate: overload.rate,
    seconds: overload.seconds,
    brokerDrops,
  });
  printRows(
    'broker log (default queue)',
    (await summarizeBrokerLog(dir)).map((line): [string, string] => ['', line]),
  );
  await service.stop();
  return result;
}

/**
 * BENCH_REST_SECONDS (10) with every device connected and no values: the gateway's and worker's
 * CPU then (timers, polls, the twins' heartbeat checks) and the baseline's, measured together: the
 * part of a phase's CPU that is not the values' (docs/benchmarks.md).
 */
async function restPhase(run: Run, service: ServiceProcess, baseline: BaselineProcess): Promise<void> {
  const seconds = envInt('BENCH_REST_SECONDS', 10);
  const cpu = cpuMeter({ gateway: service.pid, worker: run.worker.pid, baseline: baseline.pid });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const shares = cpu.shares();
  printRows(`\nat rest: ${run.deviceIds.length} devices connected, no values, ${seconds} s`, [
    [
      'CPU, % of one core',
      Object.entries(shares)
        .map(([name, share]) => `${name} ${share.toFixed(1)}%`)
        .join(', '),
    ],
  ]);
}

/** Issue 14's targets, each beside the baseline of this run. */
function printTargets(
  base: PhaseResult,
  measured: PhaseResult,
  half: PhaseResult | null,
  baseLadder: PhaseResult[],
  serviceLadder: PhaseResult[],
): void {
  const baseHeld = heldRate(baseLadder);
  const serviceHeld = heldRate(serviceLadder);
  const cpuRatio = cpuPerThousand(measured) / cpuPerThousand(base);
  printRows('\nissue 14 targets (service = gateway + worker processes; baseline = the bare subscriber)', [
    [
      'CPU per 1,000 values/s',
      `${cpuPerThousand(measured).toFixed(1)}% / ${cpuPerThousand(base).toFixed(1)}% of a core = ${cpuRatio.toFixed(2)}× (target ≤ 1.3×)`,
    ],
    [
      '  the same at each ladder step both held',
      baseLadder
        .flatMap((b) => {
          const s = serviceLadder.find((r) => r.rate === b.rate);
          return s && holds(s) && holds(b) ? [`${b.rate}/s ${(cpuPerThousand(s) / cpuPerThousand(b)).toFixed(2)}×`] : [];
        })
        .join(', ') || 'none',
    ],
    [
      'p99 publish → pin:update at half the baseline’s held rate',
      half ? `${half.latency.p99} ms at ${half.rate}/s, ${lost(half)} lost (target ≤ 50 ms)` : 'not measured (the baseline held no rate)',
    ],
    [
      `highest rate held (0 lost, p99 ≤ ${HELD_P99_MS} ms)`,
      `service ${serviceHeld}/s, baseline ${baseHeld}/s = ${ratio(serviceHeld, baseHeld)} (goal ≥ 0.8×)` +
        (baseLadder.every(holds) ? '; the baseline held every step: its figure is a lower bound' : '') +
        (serviceLadder.every(holds) ? '; the service held every step: its figure is a lower bound' : ''),
    ],
  ]);
}

async function main(cleanup: Cleanup): Promise<void> {
  const devices = envInt('BENCH_DEVICES', 1000);
  const rate = envInt('BENCH_RATE', 1000);
  const seconds = envInt('BENCH_SECONDS', 15);
  process.stdout.write(
    `ingest bench: ${devices} devices, ${rate} msgs/s in total (${(rate / devices).toFixed(2)} per device), ${seconds} s, QoS 1, pin ${PIN}\n${machineLine()}\n`,
  );
  const backends = await startBackends(cleanup);
  const brokerDrops = await watchBrokerDrops(backends.mqttUrl, backends.mqttUsername, backends.mqttPassword);
  cleanup.add('broker $SYS watcher', () => brokerDrops.close());
  const redis = new Redis(backends.redisUrl, { connectionName: 'bench-inspector' });
  cleanup.add('redis inspector', async () => void redis.disconnect());
  const pool = createPgPool(backends.databaseUrl, 'bench-inspector');
  cleanup.add('postgres inspector', () => pool.end());
  const credentialKey = randomBytes(32).toString('hex');
  const worker = await startWorker(backends, cleanup, { DEVICE_HEARTBEAT_TIMEOUT_S: String(HEARTBEAT_TIMEOUT_S) });
  const service = await startGateway(backends, { cleanup, credentialKey }, 'bench-ingest-gw');

  const account = await createAccount(service.baseUrl);
  let mark = Date.now();
  const deviceIds = await createDevices(account, devices);
  process.stdout.write(`created ${devices} devices over HTTP in ${((Date.now() - mark) / 1000).toFixed(1)} s\n`);
  mark = Date.now();
  const fleet = await connectFleet({
    url: backends.mqttUrl,
    username: backends.mqttUsername,
    password: backends.mqttPassword,
    count: devices,
  });
  cleanup.add('mqtt fleet', () => closeFleet(fleet));
  process.stdout.write(`connected ${devices} MQTT clients in ${((Date.now() - mark) / 1000).toFixed(1)} s\n`);
  const run: Run = { backends, brokerDrops, redis, pool, worker, credentialKey, fleet, deviceIds, account, rate, seconds, cleanup };
  mark = Date.now();
  const online = await wakeTwins(run, service);
  const waited = await waitForQuiet([service.pid, worker.pid, backends.pids.temporal], 15, 60_000);
  // V8's memory reducer runs three full GCs in each of the worker's isolates (the main thread and
  // the workflow thread) some 40 s after the wake-up's last allocations, about 1 s of CPU in all.
  // Without this wait they landed in the rest or the 1000/s part and read as CPU per value.
  const reduced = await waitForQuiet([worker.pid], WORKER_QUIET_PERCENT, WORKER_QUIET_CAP_MS, [], WORKER_QUIET_SECONDS);
  process.stdout.write(
    `woke the twins: ${online} of ${devices} devices online, their twins confirmed, after ${((Date.now() - mark) / 1000).toFixed(0)} s; ` +
      `then waited ${waited.toFixed(0)} s (at most 60) for the gateway, the worker and Temporal to go quiet, ` +
      `and ${reduced.toFixed(0)} s (at most ${WORKER_QUIET_CAP_MS / 1000}) for the worker to stay under ${WORKER_QUIET_PERCENT} % of a core for ${WORKER_QUIET_SECONDS} s in a row (its post-wake GCs)\n`,
  );

  const baseline = await startBaseline(backends, BASELINE_ROOT, cleanup);
  // Each measured part starts once whatever the one before left running has gone quiet: without the
  // wait, a 1000/s part right after a 3765/s one measured 1.5× the gateway's CPU per value of the
  // same rate earlier in the run.
  const quiet = async (): Promise<void> => {
    const waited = await waitForQuiet(
      [service.pid, worker.pid, baseline.pid, backends.pids.temporal, backends.pids.redis, backends.pids.mosquitto],
      QUIET_PERCENT,
      QUIET_CAP_MS,
      [backends.pids.postgres],
    );
    if (waited > 1.5) process.stdout.write(`(waited ${waited.toFixed(0)} s for the servers to go quiet)\n`);
  };
  const settled = async <T>(part: () => Promise<T>): Promise<T> => {
    await quiet();
    return part();
  };
  const base = await settled(() => baselinePhase(run, baseline, PIN, rate, seconds, true));
  await settled(() => restPhase(run, service, baseline));
  const measured = await settled(() => servicePhase(run, service, PIN, rate, seconds, true));
  const baseLadder = await settled(() =>
    ladder('baseline ladder', rate, (pin, r, s) => baselinePhase(run, baseline, pin, r, s, false), quiet),
  );
  const baseHeld = heldRate(baseLadder);
  const half =
    baseHeld > 0 ? await settled(() => servicePhase(run, service, HALF_RATE_PIN, Math.round(baseHeld / 2), seconds, true)) : null;
  const serviceLadder = await settled(() =>
    ladder('service ladder', rate, (pin, r, s) => servicePhase(run, service, pin, r, s, false), quiet),
  );
  printRows('\nservice / baseline', [
    ['throughput', ratio(measured.throughput, base.throughput)],
    ['p50 latency', ratio(measured.latency.p50, base.latency.p50)],
    ['p99 latency', ratio(measured.latency.p99, base.latency.p99)],
    ['p50 latency, second half', ratio(measured.settled.p50, base.settled.p50)],
    ['p99 latency, second half', ratio(measured.settled.p99, base.settled.p99)],
  ]);
  printTargets(base, measured, half, baseLadder, serviceLadder);

  const overloaded = process.env.BENCH_OVERLOAD === '0' ? null : await overloadProjectBroker(run, service);
  if (overloaded) await historyMemoryPhase({ service, account, redis, pool, points: envInt('BENCH_MEMORY_POINTS', 1_000_000) });
  const exit = await service.stop();
  printRows('gateway log (LOG_LEVEL=warn), start to stop', [
    ['exit on SIGTERM', exit],
    ...(await summarizeLog(service.logFile)).map((line): [string, string] => ['', line]),
  ]);
  printRows(
    'broker log (Mosquitto, project config, every phase so far)',
    (await summarizeBrokerLog(backends.dir)).map((line): [string, string] => ['', line]),
  );
  await closeFleet(fleet);
  if (overloaded) {
    const mosquittoDefault = await overloadDefaultBroker(run, overloaded);
    printRows(`\nabove saturation (${overloaded.rate} values/s offered for ${overloaded.seconds} s): Mosquitto default / project config`, [
      [
        'dropped by the broker',
        `${mosquittoDefault.dropped} / ${overloaded.project.dropped} of ${mosquittoDefault.acked} / ${overloaded.project.acked} acknowledged`,
      ],
      ['stored rate', ratio(mosquittoDefault.storedRate, overloaded.project.storedRate)],
      ['peak queue lag', `${mosquittoDefault.peakLag.toFixed(1)} s / ${overloaded.project.peakLag.toFixed(1)} s`],
      ['drained after the last publish', `${mosquittoDefault.drainSeconds.toFixed(1)} s / ${overloaded.project.drainSeconds.toFixed(1)} s`],
    ]);
  }
  process.stdout.write(`${machineLine()}\n`);
}

if (require.main === module) void runBench('ingest', main);
