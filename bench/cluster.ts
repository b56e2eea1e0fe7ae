/**
 * Multi-node bench (issue 14 item 5): one and then two gateway processes (dist/gateway/main.js)
 * plus one twin worker process (dist/workers/main.js), on the same Redis, broker, Temporal and
 * PostgreSQL. The same MQTT load (QoS 1 values from simulated devices, offered above what the
 * nodes can store) drives each configuration; prints the stored rate at saturation,
 * publish→`pin:update` at a Socket.IO client subscribed to the project, CPU per process, and the
 * 2-node / 1-node throughput ratio, against a control: one gateway with both nodes' ingest
 * connections (separates a second core from a wider in-flight window). Prints figures only.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { MqttClient } from 'mqtt';
import { createPgPool, type Pool } from '../store/pg/pool';
import { createAccount, createDevices } from './support/api';
import { startBackends, type Backends } from './support/backends';
import { runBench, type Cleanup } from './support/cleanup';
import { cpuMeter, waitForQuiet } from './support/cpu';
import { envInt } from './support/env';
import { countStoredPoints, readStoredPoints } from './support/history';
import { machineLine } from './support/machine';
import { machineCpuMeter } from './support/machine-cpu';
import { closeFleet, connectFleet } from './support/mqtt-fleet';
import { publishPaced } from './support/paced-publish';
import { sampleQueueLag } from './support/queue-lag';
import { gatewayNode, startService, startWorker, type ServiceProcess, type WorkerProcess } from './support/service-process';
import { settle } from './support/settle';
import { watchProjectUpdates } from './support/socket-updates';
import { latencyLine, printRows, ratePerSecond, ratio, summarize, type Summary } from './support/stats';

const TOPIC_ROOT = 'dds';
/** Pins of the two configurations, one each so each counts only its own values. */
const PINS = { warmUp: 'V0', one: 'V1', two: 'V2', oneWide: 'V3' } as const;
/** The gateway's default MQTT_INGEST_CONNECTIONS (common/config.ts). */
const INGEST_CONNECTIONS = 8;
/**
 * Twins' heartbeat timeout, longer than the bench: with the default 60 s, the timers of twins all
 * started at once fire together every period and load Temporal and the worker in some phases and
 * not others (bench/twins measures that cost). Here only ingest across gateway processes is measured.
 */
const HEARTBEAT_TIMEOUT_S = 3600;
/** Longest the bench waits for the gateways to catch up after the last publish. */
const DRAIN_CAP_MS = 120_000;

interface Run {
  backends: Backends;
  pool: Pool;
  worker: WorkerProcess;
  fleet: readonly MqttClient[];
  deviceIds: readonly string[];
  account: { token: string; projectId: string };
  rate: number;
  seconds: number;
  cleanup: Cleanup;
}

interface PhaseResult {
  storedRate: number;
  latency: Summary;
  /** Percent of one core: the gateways' highest, the bench's processes together, and the whole machine. */
  busiestGateway: number;
  totalCpu: number;
  machineCpu: number;
}

/** A gateway-only node with its own NODE_ID (its own broker sessions in the shared ingest group). */
function startGateway(
  backends: Backends,
  cleanup: Cleanup,
  nodeId: string,
  credentialKey: string,
  connections = INGEST_CONNECTIONS,
): Promise<ServiceProcess> {
  return startService(
    backends,
    cleanup,
    {
      MQTT_TOPIC_ROOT: TOPIC_ROOT,
      NODE_ID: nodeId,
      CREDENTIAL_KEY: credentialKey,
      MQTT_INGEST_CONNECTIONS: String(connections),
      DEVICE_HEARTBEAT_TIMEOUT_S: String(HEARTBEAT_TIMEOUT_S),
    },
    gatewayNode(nodeId),
  );
}

/**
 * Offers `run.rate` values a second for `run.seconds` on `pin`, waits until every gateway's
 * broker-queue lag is back under 0.5 s, and measures the stored rate (first to last stored value:
 * the saturation rate when the gateways were behind throughout) and publish→`pin:update` at one
 * Socket.IO client on the first gateway.
 */
async function phase(run: Run, label: string, gateways: readonly ServiceProcess[], pin: string, rate = run.rate): Promise<PhaseResult> {
  const first = gateways[0] as ServiceProcess;
  const updates = await watchProjectUpdates(first.baseUrl, run.account.token, run.account.projectId);
  run.cleanup.add(`socket.io client (${label})`, async () => updates.close());
  const lags = gateways.map((g) => sampleQueueLag(g.metricsUrl));
  const pids: Record<string, number> = Object.fromEntries(gateways.map((g, i) => [`gateway ${i + 1}`, g.pid]));
  const machine = machineCpuMeter();
  const cpu = cpuMeter({ ...pids, worker: run.worker.pid, ...run.backends.pids, bench: process.pid });
  const topics = run.deviceIds.map((id) => `${TOPIC_ROOT}/${id}/pin/${pin}`);
  const outcome = await publishPaced(run.fleet, topics, rate, run.seconds);
  const drained = await Promise.all(lags.map((lag) => lag.below(0.5, DRAIN_CAP_MS)));
  const stored = await settle(() => countStoredPoints(run.pool, run.deviceIds, pin), outcome.acked, 3000, 30_000);
  const received = await settle(() => updates.samples.length, stored, 3000, 30_000);
  const cpuShare = cpu.since();
  const shares = cpu.shares();
  const machineCpu = machine.since();
  const lagSamples = await Promise.all(lags.map((lag) => lag.stop()));
  updates.close();

  const storedRate = ratePerSecond((await readStoredPoints(run.pool, run.deviceIds, pin)).map((p) => p.storedAt));
  const latency = summarize(updates.samples.map((s) => s.latency));
  const achieved = outcome.attempted / outcome.seconds;
  const peaks = lagSamples.map((samples) => samples.reduce((max, s) => Math.max(max, s.lag), 0).toFixed(1));
  printRows(`\n${label}: ${rate} values/s offered for ${run.seconds} s on pin ${pin}`, [
    ['published', `${outcome.attempted} in ${outcome.seconds.toFixed(1)} s (${achieved.toFixed(0)}/s achieved)`],
    [
      'acknowledged to the devices',
      `${outcome.acked}${outcome.failed || outcome.unanswered ? ` (${outcome.failed} failed, ${outcome.unanswered} unanswered)` : ''}`,
    ],
    ['stored, after the drain', `${stored}${stored < outcome.acked ? ` (${outcome.acked - stored} acknowledged and not stored)` : ''}`],
    ['stored rate (saturation)', `${storedRate.toFixed(0)} values/s (offered / stored ${(achieved / storedRate).toFixed(2)}×)`],
    ['peak broker-queue lag', `${peaks.join(' s, ')} s${drained.every(Boolean) ? '' : ` (not drained within ${DRAIN_CAP_MS / 1000} s)`}`],
    ['publish → pin:update', latencyLine(latency)],
    ['updates received', `${received} of ${stored} stored`],
    ['CPU, % of one core', cpuShare],
    ['  machine (all processes)', `${Math.round(machineCpu)}% of ${availableParallelism() * 100}%`],
  ]);
  const gatewayShares = Object.keys(pids).map((name) => shares[name] ?? NaN);
  const totalCpu = Object.values(shares).reduce((sum, share) => sum + share, 0);
  return { storedRate, latency, busiestGateway: Math.max(...gatewayShares), totalCpu, machineCpu };
}

/**
 * What bounds the stored rate, read from the figures: the in-flight window when one gateway with
 * twice the ingest connections stores much more than with the default (each connection holds one
 * value until it is stored), and the machine's cores, which every process here shares with any
 * other work on the machine.
 */
function boundLine(one: PhaseResult, two: PhaseResult, control: PhaseResult): string {
  const cores = availableParallelism() * 100;
  const cpu = (
    [
      ['1 gateway', one],
      ['2 gateways', two],
      ['control', control],
    ] as const
  )
    .map(
      ([label, r]) =>
        `${label}: machine ${Math.round(r.machineCpu)}%, this bench's processes ${Math.round(r.totalCpu)}%, busiest gateway ${Math.round(r.busiestGateway)}%`,
    )
    .join('; ');
  const window =
    control.storedRate >= 1.3 * one.storedRate
      ? `one gateway's in-flight window: ${INGEST_CONNECTIONS} ingest connections each hold at most MQTT_INGEST_IN_FLIGHT values until they are stored, ` +
        `so a gateway stores at most that window ÷ per-value round trip; ${2 * INGEST_CONNECTIONS} connections on one process store ` +
        `${ratio(control.storedRate, one.storedRate)} as much, so the second gateway's gain is its connections more than its process`
      : `not one gateway's in-flight window (${2 * INGEST_CONNECTIONS} connections on one process stored ${ratio(control.storedRate, one.storedRate)} as much as ${INGEST_CONNECTIONS})`;
  const busiest = Math.max(one.machineCpu, two.machineCpu, control.machineCpu);
  return (
    `bound (CPU in % of one core, out of ${cores}%: ${cpu}):\n  ${window};\n` +
    `  then the machine's ${cores / 100} cores (up to ${Math.round(busiest)}% busy here): gateways, worker, Redis, Mosquitto, Temporal, ` +
    'PostgreSQL and this publisher share them with any other work on the machine, so a second gateway process adds an event loop, not a core'
  );
}

async function main(cleanup: Cleanup): Promise<void> {
  const devices = envInt('BENCH_DEVICES', 400);
  const rate = envInt('BENCH_CLUSTER_RATE', 4000);
  const seconds = envInt('BENCH_SECONDS', 8);
  process.stdout.write(
    `cluster bench: ${devices} devices, ${rate} values/s offered (${(rate / devices).toFixed(1)} per device), ${seconds} s per configuration, QoS 1, ` +
      `twins' heartbeat timeout ${HEARTBEAT_TIMEOUT_S} s\n${machineLine()}\n`,
  );
  const backends = await startBackends(cleanup);
  const pool = createPgPool(backends.databaseUrl, 'bench-inspector');
  cleanup.add('postgres inspector', () => pool.end());
  const credentialKey = randomBytes(32).toString('hex');
  const worker = await startWorker(backends, cleanup);
  const gatewayA = await startGateway(backends, cleanup, 'bench-gw-a', credentialKey);

  const account = await createAccount(gatewayA.baseUrl);
  const deviceIds = await createDevices(account, devices);
  const fleet = await connectFleet({
    url: backends.mqttUrl,
    username: backends.mqttUsername,
    password: backends.mqttPassword,
    count: devices,
  });
  cleanup.add('mqtt fleet', () => closeFleet(fleet));
  const waited = await waitForQuiet([gatewayA.pid, worker.pid, backends.pids.temporal], 15, 60_000);
  process.stdout.write(
    `created ${devices} devices and connected their MQTT clients; waited ${waited.toFixed(0)} s (at most 60) for the twins to start\n`,
  );

  const run: Run = { backends, pool, worker, fleet, deviceIds, account, rate, seconds, cleanup };
  // Devices' first values wake their twins (Temporal work); pay that before measuring anything.
  await phase(run, 'warm-up (twins wake), 1 gateway', [gatewayA], PINS.warmUp, Math.round(rate / 4));
  const woke = await waitForQuiet([worker.pid, backends.pids.temporal], 15, 60_000);
  process.stdout.write(`waited ${woke.toFixed(0)} s (at most 60) for the worker and Temporal to go quiet after the twins woke\n`);
  const one = await phase(run, `1 gateway (${INGEST_CONNECTIONS} ingest connections) + 1 worker`, [gatewayA], PINS.one);
  const gatewayB = await startGateway(backends, cleanup, 'bench-gw-b', credentialKey);
  await waitForQuiet([gatewayA.pid, gatewayB.pid, worker.pid], 15, 30_000);
  const two = await phase(run, `2 gateways (${INGEST_CONNECTIONS} ingest connections each) + 1 worker`, [gatewayA, gatewayB], PINS.two);
  // Control: one gateway process with the two nodes' ingest connections, to tell cores from in-flight window.
  await gatewayB.stop();
  await gatewayA.stop();
  const wide = await startGateway(backends, cleanup, 'bench-gw-wide', credentialKey, 2 * INGEST_CONNECTIONS);
  await waitForQuiet([wide.pid, worker.pid], 15, 30_000);
  const oneWide = await phase(run, `control: 1 gateway with ${2 * INGEST_CONNECTIONS} ingest connections + 1 worker`, [wide], PINS.oneWide);

  printRows('\n2 gateways / 1 gateway', [
    [
      'stored rate at saturation',
      `${ratio(two.storedRate, one.storedRate)} (${two.storedRate.toFixed(0)} / ${one.storedRate.toFixed(0)} values/s)`,
    ],
    ['p50 publish → pin:update', ratio(two.latency.p50, one.latency.p50)],
    ['p99 publish → pin:update', ratio(two.latency.p99, one.latency.p99)],
    [
      `control: 1 gateway × ${2 * INGEST_CONNECTIONS} connections / 1 × ${INGEST_CONNECTIONS}`,
      `${ratio(oneWide.storedRate, one.storedRate)} (${oneWide.storedRate.toFixed(0)} values/s)`,
    ],
  ]);
  process.stdout.write(`${boundLine(one, two, oneWide)}\n`);
  process.stdout.write(`${machineLine()}\n`);
}

if (require.main === module) void runBench('cluster', main);
