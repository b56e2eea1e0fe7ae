/**
 * Ingest bench (issue 4): N simulated devices publish over MQTT at a fixed total rate; the service
 * (its own process) stores every value and fans it out to a Socket.IO client. Then the same load
 * drives a bare subscriber doing the same Redis writes, as a baseline. Then (issue 12) one node is
 * driven above the rate it can store, once on the project's broker config and once on a broker
 * with Mosquitto's default queue, counting what the broker acknowledged and then dropped, and the
 * node's broker-queue lag. Prints figures only.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { MqttClient } from 'mqtt';
import { MAX_QUEUED_MESSAGES, startMosquitto } from '../scripts/dev-servers';
import { createAccount, createDevices } from './support/api';
import { startBackends, type Backends } from './support/backends';
import { startBaseline } from './support/baseline-process';
import { baselineHistoryKey } from './support/baseline-protocol';
import { watchBrokerDrops, type BrokerDrops } from './support/broker-sys';
import { runBench, type Cleanup } from './support/cleanup';
import { cpuMeter, waitForQuiet } from './support/cpu';
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
import { bridgeCounters } from './support/service-metrics';
import { startService, type ServiceProcess } from './support/service-process';
import { settle } from './support/settle';
import { watchProjectUpdates } from './support/socket-updates';
import { latencyLine, printRows, ratePerSecond, ratio, secondHalf, summarize, type Sample, type Summary } from './support/stats';

const SERVICE_ROOT = 'dds';
const BASELINE_ROOT = 'dds-baseline';
const PIN = 'V1';
/** Pins of the runs above saturation, one each so each counts only its own values. */
const OVERLOAD_PINS = { calibration: 'V7', project: 'V8', mosquittoDefault: 'V9' } as const;

interface Run {
  backends: Backends;
  /** The project broker's own dropped-messages count, followed from its start. */
  brokerDrops: BrokerDrops;
  redis: Redis;
  /** The service's history database, to count what was persisted. */
  pool: Pool;
  fleet: MqttClient[];
  deviceIds: string[];
  rate: number;
  seconds: number;
  cleanup: Cleanup;
}

interface PhaseResult {
  throughput: number;
  latency: Summary;
  /** Latency of the messages sent in the second half of the run. */
  settled: Summary;
}

function latencyRows(label: string, samples: readonly Sample[]): [string, string][] {
  return [
    [label, latencyLine(summarize(samples.map((s) => s.latency)))],
    ['  sent in the second half', latencyLine(summarize(secondHalf(samples)))],
  ];
}

function publishedRow(outcome: PublishOutcome): [string, string] {
  const problems = [outcome.failed && `${outcome.failed} failed`, outcome.unanswered && `${outcome.unanswered} unanswered`];
  const note = problems.filter(Boolean).join(', ');
  return ['messages published', `${outcome.acked} acked of ${outcome.attempted} in ${outcome.seconds.toFixed(1)} s${note ? ` (${note})` : ''}`];
}

function countRow(label: string, got: number, expected: number, unit = ''): [string, string] {
  return [label, `${got}${unit}${got < expected ? ` (${expected - got} missing)` : ''}`];
}

async function servicePhase(run: Run, service: ServiceProcess, account: { token: string; projectId: string }): Promise<PhaseResult> {
  const updates = await watchProjectUpdates(service.baseUrl, account.token, account.projectId);
  run.cleanup.add('socket.io client', async () => updates.close());
  const cpu = cpuMeter({ service: service.pid, ...run.backends.pids, bench: process.pid });
  const health = probe(`${service.baseUrl}/healthz`);
  const topics = run.deviceIds.map((id) => `${SERVICE_ROOT}/${id}/pin/${PIN}`);
  const outcome = await publishPaced(run.fleet, topics, run.rate, run.seconds);
  const healthz = await health.stop();
  const stored = await settle(() => countStoredPoints(run.pool, run.deviceIds, PIN), outcome.acked);
  const received = await settle(() => updates.samples.length, outcome.acked);
  const cpuShare = cpu.since();
  updates.close();

  const points = await readStoredPoints(run.pool, run.deviceIds, PIN);
  const throughput = ratePerSecond(points.map((p) => p.storedAt));
  const ingestSamples = points.map((p): Sample => ({ sentAt: Number(p.value), latency: p.storedAt - Number(p.value) }));
  const bridge = await bridgeCounters(service.metricsUrl);
  printRows(`\nservice: node dist/scripts/start.js (gateway + twin worker, pid ${service.pid}), topic root ${SERVICE_ROOT}`, [
    publishedRow(outcome),
    ['handled by the MQTT bridge', `${bridge.handled} (dropped as invalid: ${bridge.dropped})`],
    countRow('messages stored', stored, outcome.acked, ' history points'),
    ['sustained stored', `${throughput.toFixed(0)} msgs/s`],
    ...latencyRows('publish → ingest start', ingestSamples),
    ...latencyRows('publish → pin:update', updates.samples),
    countRow('updates received', received, outcome.acked),
    ['GET /healthz meanwhile', latencyLine(healthz)],
    ['devices online (twin mirror)', `${await countOnline(run.redis, run.deviceIds)} of ${run.deviceIds.length}`],
    ['CPU, % of one core', cpuShare],
  ]);
  return { throughput, latency: summarize(updates.samples.map((s) => s.latency)), settled: summarize(secondHalf(updates.samples)) };
}

async function baselinePhase(run: Run, service: ServiceProcess): Promise<PhaseResult> {
  const baseline = await startBaseline(run.backends, BASELINE_ROOT, run.cleanup);
  const cpu = cpuMeter({ baseline: baseline.pid, ...run.backends.pids, 'service (idle)': service.pid, bench: process.pid });
  const topics = run.deviceIds.map((id) => `${BASELINE_ROOT}/${id}/pin/${PIN}`);
  const outcome = await publishPaced(run.fleet, topics, run.rate, run.seconds);
  const historyKeys = run.deviceIds.map((id) => baselineHistoryKey(id, PIN));
  const stored = await settle(() => countPoints(run.redis, historyKeys), outcome.acked);
  const cpuShare = cpu.since();
  const report = await baseline.report();
  const throughput = ratePerSecond(report.ackTimes);
  const samples = report.latencies.map((latency, i): Sample => ({ sentAt: (report.ackTimes[i] ?? NaN) - latency, latency }));
  printRows(`\nbaseline: bare mqtt.js subscriber + one Redis pipeline per message (pid ${baseline.pid}), topic root ${BASELINE_ROOT}`, [
    publishedRow(outcome),
    countRow('messages stored', stored, outcome.acked, ' history points'),
    ['write errors', String(report.failed)],
    ['sustained stored', `${throughput.toFixed(0)} msgs/s`],
    ...latencyRows('publish → write acked', samples),
    ['CPU, % of one core', cpuShare],
  ]);
  return { throughput, latency: summarize(report.latencies), settled: summarize(secondHalf(samples)) };
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
  const common = { service, fleet: run.fleet, pool: run.pool, deviceIds: run.deviceIds, topicRoot: SERVICE_ROOT, brokerDrops: run.brokerDrops };
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

/** The same load on a fresh broker with Mosquitto's default queue and a fresh node on it (same Redis and Temporal). */
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
  const service = await startService(backends, run.cleanup, { MQTT_TOPIC_ROOT: SERVICE_ROOT });
  const fleet = await connectFleet({ url: broker.url, username: broker.serviceUsername, password: broker.servicePassword, count: run.deviceIds.length });
  run.cleanup.add('mqtt fleet (default-queue broker)', () => closeFleet(fleet));
  await waitForQuiet([service.pid, backends.pids.temporal], 15, 30_000);
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
  printRows('broker log (default queue)', (await summarizeBrokerLog(dir)).map((line): [string, string] => ['', line]));
  await service.stop();
  return result;
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
  const service = await startService(backends, cleanup, { MQTT_TOPIC_ROOT: SERVICE_ROOT });

  const account = await createAccount(service.baseUrl);
  let mark = Date.now();
  const deviceIds = await createDevices(account, devices);
  process.stdout.write(`created ${devices} devices over HTTP in ${((Date.now() - mark) / 1000).toFixed(1)} s\n`);
  mark = Date.now();
  const fleet = await connectFleet({ url: backends.mqttUrl, username: backends.mqttUsername, password: backends.mqttPassword, count: devices });
  cleanup.add('mqtt fleet', () => closeFleet(fleet));
  process.stdout.write(`connected ${devices} MQTT clients in ${((Date.now() - mark) / 1000).toFixed(1)} s\n`);
  const waited = await waitForQuiet([service.pid, backends.pids.temporal], 15, 60_000);
  process.stdout.write(`waited ${waited.toFixed(0)} s (at most 60) for the service and Temporal to go quiet after starting the twins\n`);

  // The baseline first, while the service idles (its topic root gets nothing) and no twin has woken yet.
  const run: Run = { backends, brokerDrops, redis, pool, fleet, deviceIds, rate, seconds, cleanup };
  const base = await baselinePhase(run, service);
  const measured = await servicePhase(run, service, account);
  const overload = await overloadProjectBroker(run, service);
  await historyMemoryPhase({ service, account, redis, pool, points: envInt('BENCH_MEMORY_POINTS', 1_000_000) });
  const exit = await service.stop();
  printRows('service log (LOG_LEVEL=warn), start to stop', [
    ['exit on SIGTERM', exit],
    ...(await summarizeLog(service.logFile)).map((line): [string, string] => ['', line]),
  ]);
  printRows('broker log (Mosquitto, project config, every phase so far)', (await summarizeBrokerLog(backends.dir)).map((line): [string, string] => ['', line]));
  await closeFleet(fleet);
  const mosquittoDefault = await overloadDefaultBroker(run, overload);
  printRows('\nservice / baseline', [
    ['throughput', ratio(measured.throughput, base.throughput)],
    ['p50 latency', ratio(measured.latency.p50, base.latency.p50)],
    ['p99 latency', ratio(measured.latency.p99, base.latency.p99)],
    ['p50 latency, second half', ratio(measured.settled.p50, base.settled.p50)],
    ['p99 latency, second half', ratio(measured.settled.p99, base.settled.p99)],
  ]);
  printRows(`\nabove saturation (${overload.rate} values/s offered for ${overload.seconds} s): Mosquitto default / project config`, [
    ['dropped by the broker', `${mosquittoDefault.dropped} / ${overload.project.dropped} of ${mosquittoDefault.acked} / ${overload.project.acked} acknowledged`],
    ['stored rate', ratio(mosquittoDefault.storedRate, overload.project.storedRate)],
    ['peak queue lag', `${mosquittoDefault.peakLag.toFixed(1)} s / ${overload.project.peakLag.toFixed(1)} s`],
    ['drained after the last publish', `${mosquittoDefault.drainSeconds.toFixed(1)} s / ${overload.project.drainSeconds.toFixed(1)} s`],
  ]);
  process.stdout.write(`${machineLine()}\n`);
}

if (require.main === module) void runBench('ingest', main);
