/**
 * bench/provision (issue 40): what adding a device costs at the broker, and how soon it can log
 * in, with 1,000, 10,000 and 100,000 devices already known; beside today's baseline measured in
 * the same run, dynamic security with one account (a role and a client) per command, measured up
 * to BASELINE_MAX known accounts and extrapolated beyond (its cost per account grows with the count).
 *
 *   npm run build && flock /tmp/dds-heavy.lock node dist/bench/provision.js
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync } from 'mqtt';
import { hashSecret } from '../common/credentials';
import { createLogger } from '../common/logger';
import { createRedis, type Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { type BrokerCredentials, createBrokerCredentials } from '../gateway/mqtt/broker-credentials';
import { createDevicePluginCredentials } from '../gateway/mqtt/device-plugin-credentials';
import { startMosquitto, type MosquittoServer } from '../scripts/dev-servers/mosquitto';
import { startRedis } from '../scripts/dev-servers/redis';
import { newDeviceToken } from '../store/devices';
import { preloadDynsec } from './support/dynsec-preload';
import { machineLine } from './support/machine';
import { printTable, summarize } from './support/stats';

const ROOT = 'dds';
const KNOWN = [1_000, 10_000, 100_000];
const PLUGIN_ADDS = 1_000;
const LOGINS = 200;
/** The baseline's known counts: past 10,000 each added account costs seconds. */
const BASELINE_KNOWN = [1_000, 3_000, 10_000];
const BASELINE_ADDS: Record<number, number> = { 1000: 50, 3000: 30, 10000: 10 };
const logger = createLogger('silent', 'bench-provision');

interface Row {
  known: number;
  addsPerS: number;
  loginMs: number[];
  extrapolated?: boolean;
}

async function login(broker: MosquittoServer, username: string, password: string): Promise<number> {
  const started = performance.now();
  const client = await connectAsync(
    broker.url,
    { protocolVersion: 5, username, password, reconnectPeriod: 0, connectTimeout: 10_000 },
    false,
  );
  const took = performance.now() - started;
  await client.endAsync(true);
  return took;
}

/** The broker's share of a device create now: the token index and the device record, as store/devices.ts writes them. */
async function writeDevice(redis: Redis, id: string, token: string): Promise<void> {
  const tokenHash = hashSecret(token);
  await redis.set(keys.deviceByToken(tokenHash), id);
  await redis.hset(keys.device(id), { id, tokenHash, tokenLast4: token.slice(-4) });
}

async function preloadRedis(redis: Redis, count: number): Promise<void> {
  for (let done = 0; done < count; done += 1_000) {
    const batch = redis.pipeline();
    for (let i = 0; i < Math.min(1_000, count - done); i++) {
      const id = randomUUID();
      const tokenHash = hashSecret(newDeviceToken());
      batch.set(keys.deviceByToken(tokenHash), id).hset(keys.device(id), { id, tokenHash });
    }
    await batch.exec();
  }
}

/** Adds `adds` devices one after another through `credentials`, then times `logins` fresh devices from added to logged in. */
async function measure(
  broker: MosquittoServer,
  credentials: BrokerCredentials,
  add: (id: string, token: string) => Promise<void>,
  adds: number,
  logins: number,
): Promise<{ addsPerS: number; loginMs: number[] }> {
  const started = performance.now();
  for (let i = 0; i < adds; i++) {
    const id = randomUUID();
    const token = newDeviceToken();
    await add(id, token);
    await credentials.provision(id, token);
  }
  const addsPerS = (adds * 1000) / (performance.now() - started);
  const loginMs: number[] = [];
  for (let i = 0; i < logins; i++) {
    const id = randomUUID();
    const token = newDeviceToken();
    const added = performance.now();
    await add(id, token);
    await credentials.provision(id, token);
    const waited = performance.now() - added;
    loginMs.push(waited + (await login(broker, id, token)));
  }
  return { addsPerS, loginMs };
}

async function pluginRows(dir: string): Promise<Row[]> {
  const redisServer = await startRedis({ dir });
  const broker = await startMosquitto({ dir, deviceAuth: { redis: [new URL(redisServer.url).host], topicRoot: ROOT } });
  const redis = createRedis({ REDIS_URL: redisServer.url, REDIS_CLUSTER_NODES: undefined }, 'bench-provision', 10_000);
  const admin = { url: broker.url, username: broker.dynsecUsername, password: broker.dynsecPassword, topicRoot: ROOT, logger };
  const credentials = await createDevicePluginCredentials(admin);
  const rows: Row[] = [];
  try {
    let known = 0;
    for (const target of KNOWN) {
      await preloadRedis(redis, target - known);
      known = target;
      const result = await measure(broker, credentials, (id, token) => writeDevice(redis, id, token), PLUGIN_ADDS, LOGINS);
      rows.push({ known, ...result });
      known += PLUGIN_ADDS + LOGINS;
    }
  } finally {
    await credentials.close();
    redis.disconnect();
    await broker.stop();
    await redisServer.stop();
  }
  return rows;
}

async function baselineRow(dir: string, known: number): Promise<Row> {
  const dataDir = join(dir, `dynsec-${known}`);
  const first = await startMosquitto({ dir, dataDir });
  await first.stop();
  await preloadDynsec(dataDir, known, ROOT);
  const broker = await startMosquitto({ dir, dataDir });
  const admin = { url: broker.url, username: broker.dynsecUsername, password: broker.dynsecPassword, topicRoot: ROOT, logger };
  const credentials = await createBrokerCredentials({ ...admin, timeoutMs: 120_000 });
  try {
    const adds = BASELINE_ADDS[known] ?? 10;
    return { known, ...(await measure(broker, credentials, async () => {}, adds, Math.ceil(adds / 5))) };
  } finally {
    await credentials.close();
    await broker.stop();
  }
}

/** Seconds per added account grow linearly with the count (the whole file is written each time): the fit through the measured rows. */
function extrapolate(rows: Row[], known: number): Row {
  const xs = rows.map((r) => r.known);
  const ys = rows.map((r) => 1 / r.addsPerS);
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const [mx, my] = [mean(xs), mean(ys)];
  const slope = xs.reduce((s, x, i) => s + (x - mx) * ((ys[i] ?? 0) - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  const perAdd = my + slope * (known - mx);
  return { known, addsPerS: 1 / perAdd, loginMs: [perAdd * 1000], extrapolated: true };
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');

async function main(): Promise<void> {
  process.stdout.write(`bench/provision  ${new Date().toISOString()}\n${machineLine()}\n`);
  const dir = await mkdtemp(join(tmpdir(), 'dds-bench-provision-'));
  try {
    const plugin = await pluginRows(dir);
    const measured: Row[] = [];
    for (const known of BASELINE_KNOWN) measured.push(await baselineRow(dir, known));
    const baseline = [...measured, ...KNOWN.filter((k) => !BASELINE_KNOWN.includes(k)).map((k) => extrapolate(measured, k))];
    process.stdout.write(`${machineLine()}\n\n`);
    const rows = [
      ...plugin.map((r) => ['device plugin', r] as const),
      ...baseline.map((r) => ['dynsec, one account a command', r] as const),
    ];
    printTable(
      ['broker credentials', 'known devices', 'added /s', 'added → logged in p50', 'p99', 'max'],
      rows.map(([what, r]) => {
        const s = summarize(r.loginMs);
        const note = r.extrapolated ? ' (extrapolated)' : '';
        return [what + note, r.known.toLocaleString('en'), fmt(r.addsPerS), `${fmt(s.p50)} ms`, `${fmt(s.p99)} ms`, `${fmt(s.max)} ms`];
      }),
    );
    const tenThousand = plugin.find((r) => r.known === 10_000);
    if (tenThousand) {
      process.stdout.write(
        `\n10,000 devices added through the plugin path: ${fmt(10_000 / tenThousand.addsPerS)} s at ${fmt(tenThousand.addsPerS)}/s\n`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
