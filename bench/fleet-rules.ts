/**
 * Fleet rules bench (issue 38, DESIGN §12, docs/fleet.md): what rules scoped to a template or a
 * whole project cost beside one rule per device, measured in the same run. A gateway process and
 * a separate twin worker process (dist/gateway/main.js, dist/workers/main.js) on throw-away
 * servers. Prints figures only. BENCH_PHASES (change,cpu,silent) picks the phases.
 *
 *   change   BENCH_DEVICES (5000) devices of one template, twins bootstrapped: one project-wide
 *            `offline` rule and one template `no_data` rule (BENCH_NO_DATA_S, 3600 s) made through
 *            the API. Each answer's time; the Temporal calls the gateway made (its metrics) until
 *            the outbox is empty, and the history events and actions added to BENCH_HISTORY_SAMPLE
 *            (50) twins; until the outbox is empty (every twin told), and until BENCH_APPLIED_SAMPLE
 *            (200) twins' `state` queries show both rules (BENCH_POLL_LANES, BENCH_LANES, 16, at a
 *            time, each twin at most every BENCH_RECHECK_MS, 5000: a query of a twin out of the
 *            worker's cache replays its history); BENCH_OFFLINE_SAMPLE (100) devices, online before, publish `offline` right after
 *            the answers: until each one's offline notification. Baseline: a second project of as
 *            many devices of its own template gets one `offline` and one `no_data` device rule per
 *            device, BENCH_LANES requests at a time, measured the same way.
 *   cpu      the gateway's CPU per 1,000 values (BENCH_VALUES, 20,000, at BENCH_RATE, 1000/s, over
 *            MQTT, in BENCH_CPU_ROUNDS, 2, turns) for one device covered by BENCH_CPU_RULES (100)
 *            project `gt` rules that never fire, beside 1 such rule, as many device rules, and none.
 *   silent   the change phase's fleet (or a new one) with its template's heartbeat at
 *            BENCH_SILENT_HEARTBEAT_S (20) and a project-wide `offline` rule: every device sends a
 *            value every BENCH_SILENT_EVERY_S (5) over BENCH_SILENT_CONNECTIONS (one per device)
 *            MQTT connections, then BENCH_SILENT (500) stop: their offline notifications (each
 *            once, none for the others), last value → notification beside timeout + 2 s.
 *
 * BENCH_LIMIT_S (900) caps every wait; WORKER_MAX_CACHED_WORKFLOWS is the worker's (2000, the
 * service's default).
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createRedis } from '../common/redis';
import { createTwinClient } from '../gateway/temporal/twin-client';
import { createAccount, createProjectOf } from './support/api';
import { startBackends } from './support/backends';
import { runBench, type Cleanup } from './support/cleanup';
import { envInt } from './support/env';
import { ruleChange } from './support/fleet-change';
import { ingestCpu } from './support/fleet-cpu';
import { bringOnline, type Fleet, type FleetRun, makeFleet, statusClients } from './support/fleet-setup';
import { silentDevices } from './support/fleet-silent';
import { spread } from './support/lanes';
import { summarizeLog } from './support/log-summary';
import { machineLine } from './support/machine';
import { gatewayNode, startService, startWorker } from './support/service-process';
import { printRows } from './support/stats';

const TOPIC_ROOT = 'bench';
const TASK_QUEUE = 'device-twins';
/** Devices without a template of their own, and the change phase's templates: no heartbeat timer fires during the bench. */
const QUIET_HEARTBEAT_S = 36_000;
const PHASES = ['change', 'cpu', 'silent'];

async function bench(cleanup: Cleanup): Promise<void> {
  const devices = envInt('BENCH_DEVICES', 5000);
  const phases = new Set((process.env.BENCH_PHASES ?? PHASES.join(',')).split(',').map((p) => p.trim()));
  const unknown = [...phases].filter((p) => !PHASES.includes(p));
  if (unknown.length > 0) throw new Error(`BENCH_PHASES: unknown ${unknown.join(', ')} (phases: ${PHASES.join(', ')})`);
  const cacheSize = envInt('WORKER_MAX_CACHED_WORKFLOWS', 2000);
  process.stdout.write(`${machineLine()}\n`);
  process.stdout.write(`fleet-rules: ${devices} devices, phases ${[...phases].join(',')}, worker cache ${cacheSize} twins\n`);

  const backends = await startBackends(cleanup);
  const shared = { MQTT_TOPIC_ROOT: TOPIC_ROOT, DEVICE_HEARTBEAT_TIMEOUT_S: String(QUIET_HEARTBEAT_S) };
  const worker = await startWorker(backends, cleanup, { ...shared, WORKER_MAX_CACHED_WORKFLOWS: String(cacheSize) });
  const gateway = await startService(
    backends,
    cleanup,
    {
      ...shared,
      NODE_ID: 'bench-fleet-rules',
      CREDENTIAL_KEY: randomBytes(32).toString('hex'),
      // Thousands of rule and device requests a minute from one user: no management rate limit.
      QUOTA_ENTERPRISE_MANAGEMENT_PER_MIN: '0',
    },
    gatewayNode('gateway'),
  );
  const redis = createRedis({ REDIS_URL: backends.redisUrl }, 'bench-fleet-rules');
  cleanup.add('redis', async () => void (await redis.quit()));
  const connection = await Connection.connect({ address: backends.temporalAddress });
  cleanup.add('client connection', () => connection.close());
  const client = new Client({ connection });
  const twins = createTwinClient({ client, taskQueue: TASK_QUEUE, heartbeatTimeoutS: QUIET_HEARTBEAT_S, timeoutMs: 60_000 });
  const account = await createAccount(gateway.baseUrl);
  const run: FleetRun = {
    backends,
    cleanup,
    redis,
    client,
    twins,
    baseUrl: gateway.baseUrl,
    metricsUrl: gateway.metricsUrl,
    account,
    pids: { gateway: gateway.pid, worker: worker.pid },
    topicRoot: TOPIC_ROOT,
    taskQueue: TASK_QUEUE,
    lanes: envInt('BENCH_LANES', 16),
    limitMs: envInt('BENCH_LIMIT_S', 900) * 1000,
  };

  let fleet: Fleet | null = null;
  if (phases.has('change')) {
    const sampleSize = envInt('BENCH_OFFLINE_SAMPLE', 100);
    fleet = await makeFleet(run, account, devices, QUIET_HEARTBEAT_S);
    const baseline = await makeFleet(run, await createProjectOf(account, 'per-device baseline'), devices, QUIET_HEARTBEAT_S);
    const clients = await statusClients(run);
    fleet.onlineBefore = spread(fleet.ids, sampleSize);
    baseline.onlineBefore = spread(baseline.ids, sampleSize);
    await bringOnline(run, clients, [...fleet.onlineBefore, ...baseline.onlineBefore]);
    await ruleChange(run, fleet, baseline, clients, {
      pollLanes: envInt('BENCH_POLL_LANES', run.lanes),
      appliedSample: envInt('BENCH_APPLIED_SAMPLE', 200),
      recheckMs: envInt('BENCH_RECHECK_MS', 5000),
      historySample: envInt('BENCH_HISTORY_SAMPLE', 50),
      noDataS: envInt('BENCH_NO_DATA_S', 3600),
    });
  }
  if (phases.has('cpu')) {
    await ingestCpu(run, {
      values: envInt('BENCH_VALUES', 20_000),
      rate: envInt('BENCH_RATE', 1000),
      rules: envInt('BENCH_CPU_RULES', 100),
      rounds: envInt('BENCH_CPU_ROUNDS', 2),
    });
  }
  if (phases.has('silent')) {
    fleet ??= await makeFleet(run, account, devices, QUIET_HEARTBEAT_S);
    await silentDevices(run, fleet, {
      silent: envInt('BENCH_SILENT', 500),
      heartbeatS: envInt('BENCH_SILENT_HEARTBEAT_S', 20),
      everyS: envInt('BENCH_SILENT_EVERY_S', 5),
      connections: envInt('BENCH_SILENT_CONNECTIONS', devices),
    });
  }
  // What the nodes warned about meanwhile (the worker logs at info: only its warnings and errors).
  const warnings = async (file: string): Promise<string> =>
    (await summarizeLog(file)).filter((line) => !line.includes('× log:')).join('\n    ') || 'nothing to report';
  printRows('\nNode logs', [
    ['gateway', await warnings(gateway.logFile)],
    ['worker', await warnings(worker.logFile)],
  ]);
  process.stdout.write(`\n${machineLine()}\n`);
}

void runBench('fleet-rules', bench);
