import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../common/config';
import type { Logger } from '../../common/logger';
import { startMosquitto, startPostgres, startRedis, startTemporal } from '../dev-servers';
import type { ServerOwner } from '../dev-servers/server-process';
import { localCertificates } from '../tls/local-ca';
import { clusterDir } from './cluster-dir';

/**
 * npm start's own settings. DDS_LOCAL_SERVERS: `auto` (default) uses a Redis / Mosquitto that
 * already answers on 127.0.0.1:6379 / 1883 (the machine's); `own` always starts npm start's own in
 * data/. MQTT_TLS=1: npm start's own Mosquitto (started even when 1883 answers) gets a TLS listener
 * with a certificate of a local CA made in data/tls on the first such start (docs/tls.md).
 */
const startEnv = z
  .object({
    DDS_LOCAL_SERVERS: z.enum(['auto', 'own']).default('auto'),
    MQTT_TLS: z.enum(['0', '1'], { error: '0 or 1' }).default('0'),
    MQTT_URL: z.string().optional(),
  })
  .refine((e) => e.MQTT_TLS === '0' || !e.MQTT_URL, {
    path: ['MQTT_TLS'],
    message: "1 gives npm start's own broker a TLS listener; MQTT_URL names a broker of yours: give it TLS and set PUBLIC_MQTT_URL",
  });

/** Where devices reach npm start's broker over TLS, and the CA file that verifies it. */
export interface DeviceTls {
  url: string;
  caFile: string;
}

/** True when something accepts TCP connections at host:port. */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port, timeout: 500 });
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
    socket.once('timeout', () => (socket.destroy(), done(false)));
  });
}

/** The Redis (host:port) the broker's device plugin reads devices from: the service's own, or a node of its Redis Cluster. */
function deviceRedis(env: NodeJS.ProcessEnv): string {
  const node = env.REDIS_CLUSTER_NODES?.split(',')[0];
  return node || new URL(env.REDIS_URL || 'redis://127.0.0.1:6379').host;
}

/**
 * Starts the servers `env` does not point at, each keeping its data in `dataDir` and owned by
 * `owner` (tied to this process, recorded): a Temporal dev server on data/temporal.db unless
 * TEMPORAL_ADDRESS; Redis (AOF in data/redis) unless REDIS_URL or one answers on 6379; Mosquitto
 * (config, accounts and passwords in data/mosquitto) unless MQTT_URL or, without MQTT_TLS, one
 * answers on 1883; PostgreSQL (cluster-dir.ts) unless DATABASE_URL. Sets `env` to reach them
 * (PUBLIC_MQTT_URL, when unset, to the TLS listener); resolves to their stops, in start order, and
 * with MQTT_TLS the TLS listener.
 */
export async function startLocalServers(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  owner: ServerOwner,
  logger: Logger,
): Promise<{ stops: (() => Promise<void>)[]; deviceTls: DeviceTls | null }> {
  const parsed = startEnv.safeParse({
    DDS_LOCAL_SERVERS: env.DDS_LOCAL_SERVERS || undefined,
    MQTT_TLS: env.MQTT_TLS || undefined,
    MQTT_URL: env.MQTT_URL,
  });
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  const reuse = (port: number): Promise<boolean> =>
    parsed.data.DDS_LOCAL_SERVERS === 'auto' ? listening('127.0.0.1', port) : Promise.resolve(false);
  const tls = parsed.data.MQTT_TLS === '1';
  const stops: (() => Promise<void>)[] = [];
  let deviceTls: DeviceTls | null = null;

  if (!env.TEMPORAL_ADDRESS) {
    const temporal = await startTemporal({
      dir: dataDir,
      dbFile: join(dataDir, 'temporal.db'),
      logFile: join(dataDir, 'temporal.log'),
      owner,
    });
    stops.push(temporal.stop);
    env.TEMPORAL_ADDRESS = temporal.address;
  }
  if (!env.REDIS_URL && !(await reuse(6379))) {
    const redis = await startRedis({ dir: dataDir, dataDir: join(dataDir, 'redis'), owner });
    stops.push(redis.stop);
    env.REDIS_URL = redis.url;
  }
  if (!env.MQTT_URL && (tls || !(await reuse(1883)))) {
    const certificates = tls ? await localCertificates(join(dataDir, 'tls')) : null;
    for (const line of certificates?.lines ?? []) logger.info(line);
    const broker = await startMosquitto({
      dir: dataDir,
      dataDir: join(dataDir, 'mosquitto'),
      owner,
      ...(certificates ? { tls: { certFile: certificates.certFile, keyFile: certificates.keyFile } } : {}),
      deviceAuth: { redis: [deviceRedis(env)], topicRoot: env.MQTT_TOPIC_ROOT || 'dds' },
    });
    stops.push(broker.stop);
    if (certificates && broker.tlsUrl) {
      deviceTls = { url: broker.tlsUrl, caFile: certificates.caFile };
      env.PUBLIC_MQTT_URL ||= broker.tlsUrl;
    }
    Object.assign(env, {
      MQTT_URL: broker.url,
      MQTT_USERNAME: broker.serviceUsername,
      MQTT_PASSWORD: broker.servicePassword,
      MQTT_DYNSEC_USERNAME: broker.dynsecUsername,
      MQTT_DYNSEC_PASSWORD: broker.dynsecPassword,
    });
  }
  if (!env.DATABASE_URL) {
    const cluster = clusterDir(dataDir);
    logger.info(`PostgreSQL data: ${cluster.dir}${cluster.linked ? ` (${join(dataDir, 'pg')} links there)` : ''}`);
    const postgres = await startPostgres({ dir: dirname(cluster.dir), dataDir: cluster.dir, durable: true, owner });
    stops.push(postgres.stop);
    env.DATABASE_URL = postgres.url;
  }
  return { stops, deviceTls };
}
