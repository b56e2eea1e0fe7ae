/**
 * Fleet bench (issue 39, DESIGN §13, docs/jobs.md): the filtered device list over a large project
 * and a command job to many devices. A gateway process and a separate twin worker process
 * (dist/gateway/main.js, dist/workers/main.js) on throw-away servers. Prints figures only.
 * BENCH_PHASES (list,job) picks the phases.
 *
 *   One project: BENCH_JOB_DEVICES (10,000) devices made through the API with the tag `rollout`
 *   (twins started), and BENCH_DEVICES (100,000) less those seeded through the store's own steps
 *   (bench/support/fleet-seed.ts: record, fleet index, mirror; no twins): tags `site-<i % 100>`,
 *   firmware `1.<i % 10>.0`, every other one online, lastSeen over the last day.
 *   list   BENCH_LIST_SAMPLES (100) pages of 20 of each filter, in turn, beside the unfiltered
 *          page (the baseline), p50 / p99; and the tag filter as it was chosen before the index
 *          (every device read), BENCH_SCAN_RUNS (5) times in the bench's process.
 *   job    BENCH_ONLINE_SHARE (50) % of the job's devices online (their twins confirmed), the
 *          bare baseline (a message straight to each of them), then a command job to the tag
 *          (ttlSeconds BENCH_JOB_TTL_S, 30): until every online device has it, until each
 *          acknowledged (they echo it), until the job completed; Temporal actions of the job's
 *          workflow (every run) and of BENCH_TWIN_SAMPLE (25) online and offline twins each.
 *
 * BENCH_LIMIT_S (900) caps every wait.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { createRedis } from '../common/redis';
import { createAccount, createDevices } from './support/api';
import { startBackends } from './support/backends';
import { runBench, type Cleanup } from './support/cleanup';
import { envInt } from './support/env';
import { bareSend, bringOnline, commandJob } from './support/fleet-job';
import { listPages } from './support/fleet-list';
import { scanByTag } from './support/fleet-scan';
import { seedDevices } from './support/fleet-seed';
import { waitUntil } from './support/lanes';
import { machineLine } from './support/machine';
import { mirrorFields } from './support/mirror';
import { closeFleet, connectFleet } from './support/mqtt-fleet';
import { gatewayNode, startService, startWorker } from './support/service-process';
import { latencyLine, printRows } from './support/stats';

const TOPIC_ROOT = 'bench';
/** No heartbeat timer fires during the bench: online devices stay online without values. */
const QUIET_HEARTBEAT_S = 36_000;
const PHASES = ['list', 'job'];
const JOB_TAG = 'rollout';

async function bench(cleanup: Cleanup): Promise<void> {
  const devices = envInt('BENCH_DEVICES', 100_000);
  const jobDevices = envInt('BENCH_JOB_DEVICES', 10_000);
  const limitMs = envInt('BENCH_LIMIT_S', 900) * 1000;
  const phases = new Set((process.env.BENCH_PHASES ?? PHASES.join(',')).split(',').map((p) => p.trim()));
  const unknown = [...phases].filter((p) => !PHASES.includes(p));
  if (unknown.length > 0) throw new Error(`BENCH_PHASES: unknown ${unknown.join(', ')} (phases: ${PHASES.join(', ')})`);
  if (jobDevices > devices) throw new Error('BENCH_JOB_DEVICES is part of BENCH_DEVICES: it may not be larger');
  process.stdout.write(`${machineLine()}\n`);
  process.stdout.write(`fleet: ${devices} devices in one project, ${jobDevices} of them a job's, phases ${[...phases].join(',')}\n`);

  const backends = await startBackends(cleanup);
  const shared = { MQTT_TOPIC_ROOT: TOPIC_ROOT, DEVICE_HEARTBEAT_TIMEOUT_S: String(QUIET_HEARTBEAT_S) };
  await startWorker(backends, cleanup, shared);
  const gateway = await startService(
    backends,
    cleanup,
    { ...shared, NODE_ID: 'bench-fleet', CREDENTIAL_KEY: randomBytes(32).toString('hex'), QUOTA_ENTERPRISE_MANAGEMENT_PER_MIN: '0' },
    gatewayNode('gateway'),
  );
  const redis = createRedis({ REDIS_URL: backends.redisUrl }, 'bench-fleet');
  cleanup.add('redis', async () => void (await redis.quit()));
  const account = await createAccount(gateway.baseUrl);

  const t0 = Date.now();
  const jobIds = await createDevices(account, jobDevices, 16, { tags: [JOB_TAG] });
  const madeMs = Date.now() - t0;
  await waitUntil('twins bootstrapped', async () => (await mirrorFields(redis, jobIds, 'status')).every((s) => s !== null), limitMs, 1000);
  const bootMs = Date.now() - t0;
  const seedMs = await seedDevices(redis, account.projectId, devices - jobDevices, { sites: 100, versions: 10 });
  printRows('\nfleet', [
    [`${jobDevices} devices through the API`, `${(madeMs / 1000).toFixed(1)} s, twins bootstrapped after ${(bootMs / 1000).toFixed(1)} s`],
    [
      `${devices - jobDevices} devices seeded through the store`,
      `${(seedMs / 1000).toFixed(1)} s (${Math.round(((devices - jobDevices) * 1000) / seedMs)}/s)`,
    ],
  ]);

  if (phases.has('list')) {
    const hourAgo = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
    process.stdout.write(`\ndevice list, ${devices} devices in the project\n`);
    await listPages(
      gateway.baseUrl,
      account.token,
      account.projectId,
      [
        { label: 'unfiltered (baseline)', query: '' },
        { label: 'tag=site-7', query: 'tag=site-7' },
        { label: `tag=${JOB_TAG}`, query: `tag=${JOB_TAG}` },
        { label: 'firmwareVersionLt=1.1.0', query: 'firmwareVersionLt=1.1.0' },
        { label: 'status=online', query: 'status=online' },
        { label: 'lastSeenAfter=1 h ago', query: `lastSeenAfter=${hourAgo}` },
        { label: 'q=fleet-4242', query: 'q=fleet-4242' },
        { label: 'tag=site-8&status=online', query: 'tag=site-8&status=online' },
      ],
      envInt('BENCH_LIST_SAMPLES', 100),
    );
    const scan = await scanByTag(redis, account.projectId, 'site-7', envInt('BENCH_SCAN_RUNS', 5));
    printRows('\nbefore the index', [[`tag=site-7 read device by device (${scan.matches} matches)`, latencyLine(scan)]]);
  }

  if (phases.has('job')) {
    const connection = await Connection.connect({ address: backends.temporalAddress });
    cleanup.add('client connection', () => connection.close());
    const clients = await connectFleet({
      url: backends.mqttUrl,
      username: backends.mqttUsername,
      password: backends.mqttPassword,
      count: 4,
    });
    cleanup.add('service clients', () => closeFleet(clients));
    await Promise.all(clients.map((c) => c.subscribeAsync(`${TOPIC_ROOT}/+/pin/+/set`, { qos: 1 })));
    const run = { redis, client: new Client({ connection }), account, topicRoot: TOPIC_ROOT, clients, limitMs };
    const online = jobIds.filter((_, i) => i % 100 < envInt('BENCH_ONLINE_SHARE', 50));
    await bringOnline(run, online);
    const bareMs = await bareSend(run, online);
    await commandJob(run, {
      tag: JOB_TAG,
      targets: jobIds,
      online,
      ttlS: envInt('BENCH_JOB_TTL_S', 30),
      twinSample: envInt('BENCH_TWIN_SAMPLE', 25),
      bareMs,
    });
  }
  process.stdout.write(`\n${machineLine()}\n`);
}

void runBench('fleet', bench);
