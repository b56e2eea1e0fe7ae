/**
 * Servers of one test file's own, for fault tests: the servers the jest global setup starts are
 * shared by every test file running at the same time, so a test that stops or freezes a server
 * starts a private one here (free port, temp dir) and points a gateway stack at it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  startMosquitto,
  startPostgres,
  startRedis,
  startRedisCluster,
  startTemporal,
  type RedisServer,
} from '../../scripts/dev-servers';
import { PROJECT_ROOT, TEMP_DIR_PREFIX } from '../harness/state';

/** A server a test can stop, freeze (SIGSTOP) and thaw (SIGCONT). */
export interface OwnServer {
  /** The env overrides that point a stack at this server. */
  env: Record<string, string>;
  stop(): Promise<void>;
  freeze(): void;
  thaw(): void;
}

/** A server that can also start again on the same address. */
export interface RestartableServer extends OwnServer {
  restart(): Promise<void>;
}

interface Running {
  pid: number;
  stop(): Promise<void>;
}

let dir: string | undefined;
const owned: Array<() => Promise<void>> = [];

async function tempDir(): Promise<string> {
  dir ??= await mkdtemp(join(tmpdir(), `${TEMP_DIR_PREFIX}own-`));
  return dir;
}

/** Signals and stops the server running now: the first one, or the one a restart started. */
function ownServer(env: Record<string, string>, first: Running): OwnServer & { replace(next: Running): void } {
  let current: Running | null = first;
  let frozen = false;
  const signal = (sig: NodeJS.Signals): void => {
    if (current) process.kill(current.pid, sig);
  };
  const server = {
    env,
    async stop() {
      if (frozen) server.thaw();
      await current?.stop();
      current = null;
    },
    freeze() {
      signal('SIGSTOP');
      frozen = true;
    },
    thaw() {
      signal('SIGCONT');
      frozen = false;
    },
    replace(next: Running) {
      current = next;
    },
  };
  owned.push(() => server.stop());
  return server;
}

/** A server that a restart starts again by `start` (same port, same data), its env taken from the first start. */
async function restartable<T extends Running>(
  start: () => Promise<T>,
  envOf: (first: T) => Record<string, string>,
): Promise<RestartableServer> {
  const first = await start();
  const server = ownServer(envOf(first), first);
  return {
    ...server,
    async restart() {
      await server.stop();
      server.replace(await start());
    },
  };
}

/** A private redis-server whose data (an append-only file) survives a restart on the same port. */
export async function ownRedis(): Promise<RestartableServer> {
  const base = await tempDir();
  const dataDir = await mkdtemp(join(base, 'redis-data-'));
  const port = await freePort();
  return restartable(
    (): Promise<RedisServer> => startRedis({ dir: base, port, dataDir }),
    (first) => ({ REDIS_URL: first.url }),
  );
}

/**
 * A private 3-master Redis Cluster (no replicas, no persistence): `env` sets REDIS_CLUSTER_NODES,
 * so a stack or createRedis given it talks to the cluster through ioredis Cluster.
 */
export async function ownRedisCluster(): Promise<{ env: Record<string, string>; stop(): Promise<void> }> {
  const cluster = await startRedisCluster({ dir: await tempDir() });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await cluster.stop();
  };
  owned.push(stop);
  return { env: { REDIS_CLUSTER_NODES: cluster.nodes }, stop };
}

/** A private PostgreSQL cluster whose data survives a restart on the same port. */
export async function ownPostgres(): Promise<RestartableServer> {
  const base = await tempDir();
  // Made (and, as root, handed to the postgres user) by startPostgres itself.
  const dataDir = join(base, `pg-${randomUUID()}`);
  const port = await freePort();
  return restartable(
    () => startPostgres({ dir: base, dataDir, port }),
    (first) => ({ DATABASE_URL: first.url }),
  );
}

/** A private Temporal dev server (in memory). */
export async function ownTemporal(): Promise<OwnServer> {
  const first = await startTemporal({ dir: await tempDir(), projectRoot: PROJECT_ROOT });
  return ownServer({ TEMPORAL_ADDRESS: first.address }, first);
}

/** A private Temporal dev server on a SQLite file: its workflows survive a stop and a restart on the same port. */
export async function ownDurableTemporal(): Promise<RestartableServer> {
  const base = await tempDir();
  const dbFile = join(await mkdtemp(join(base, 'temporal-data-')), 'temporal.db');
  const port = await freePort();
  return restartable(
    () => startTemporal({ dir: base, projectRoot: PROJECT_ROOT, dbFile, port }),
    (first) => ({ TEMPORAL_ADDRESS: first.address }),
  );
}

/**
 * A private Mosquitto with dynamic security (its accounts live in its temp dir, and survive a
 * restart on the same port); `maxQueuedMessages` as in scripts/dev-servers/mosquitto-config.ts;
 * `persistent`: its sessions and queues survive a restart too, as in a deployment; `tls`: a second
 * listener, MQTT over TLS with that certificate, whose URL the env gives as PUBLIC_MQTT_URL (the
 * address devices use). Devices log in through the device plugin against the run's Redis and
 * Redis Cluster, or `redisUrl` (a file's own Redis).
 */
export async function ownMosquitto(
  options: { maxQueuedMessages?: number | null; persistent?: boolean; tls?: { certFile: string; keyFile: string }; redisUrl?: string } = {},
): Promise<RestartableServer> {
  const base = await tempDir();
  const redis = options.redisUrl
    ? [options.redisUrl]
    : [process.env.REDIS_URL ?? '', `redis://${process.env.DDS_TEST_REDIS_CLUSTER_NODES?.split(',')[0]}`];
  let current = await startMosquitto({
    dir: base,
    deviceAuth: { redis: redis.map((url) => new URL(url).host), topicRoot: '+' },
    maxQueuedMessages: options.maxQueuedMessages,
    persistent: options.persistent ?? false,
    ...(options.tls ? { tls: options.tls } : {}),
  });
  const server = ownServer(
    {
      ...(current.tlsUrl ? { PUBLIC_MQTT_URL: current.tlsUrl } : {}),
      MQTT_URL: current.url,
      MQTT_USERNAME: current.serviceUsername,
      MQTT_PASSWORD: current.servicePassword,
      MQTT_DYNSEC_USERNAME: current.dynsecUsername,
      MQTT_DYNSEC_PASSWORD: current.dynsecPassword,
    },
    current,
  );
  return {
    ...server,
    async restart() {
      await server.stop();
      current = await current.restart();
      server.replace(current);
    },
  };
}

/** Stops every server this file started and removes their directory. */
export async function stopOwnServers(): Promise<void> {
  await Promise.allSettled(owned.splice(0).map((stop) => stop()));
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
}
