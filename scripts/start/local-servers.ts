import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../common/config';
import type { Logger } from '../../common/logger';
import { startMosquitto, startPostgres, startRedis, startTemporal } from '../dev-servers';
import type { ServerOwner } from '../dev-servers/server-process';
import { clusterDir } from './cluster-dir';

/**
 * DDS_LOCAL_SERVERS: `auto` (default) uses a Redis / Mosquitto that already answers on
 * 127.0.0.1:6379 / 1883 (the machine's); `own` always starts npm start's own in data/.
 */
const localServersMode = z.enum(['auto', 'own']).default('auto');

/** True when something accepts TCP connections at host:port. */
function listening(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port, timeout: 500 });
    socket.once('connect', () => (socket.destroy(), done(true)));
    socket.once('error', () => done(false));
    socket.once('timeout', () => (socket.destroy(), done(false)));
  });
}

/**
 * Starts the servers `env` does not point at, each keeping its data in `dataDir` and owned by
 * `owner` (tied to this process, recorded): a Temporal dev server on data/temporal.db unless
 * TEMPORAL_ADDRESS; Redis (AOF in data/redis) unless REDIS_URL or one answers on 6379; Mosquitto
 * (config, accounts and passwords in data/mosquitto) unless MQTT_URL or one answers on 1883;
 * PostgreSQL (cluster-dir.ts) unless DATABASE_URL. Sets `env` to reach them; resolves to their
 * stops, in start order.
 */
export async function startLocalServers(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  owner: ServerOwner,
  logger: Logger,
): Promise<(() => Promise<void>)[]> {
  const mode = localServersMode.safeParse(env.DDS_LOCAL_SERVERS || undefined);
  if (!mode.success) throw new ConfigError([`DDS_LOCAL_SERVERS: ${mode.error.issues[0]?.message ?? 'auto or own'}`]);
  const reuse = (port: number): Promise<boolean> => (mode.data === 'auto' ? listening('127.0.0.1', port) : Promise.resolve(false));
  const stops: (() => Promise<void>)[] = [];

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
  if (!env.MQTT_URL && !(await reuse(1883))) {
    const broker = await startMosquitto({ dir: dataDir, dataDir: join(dataDir, 'mosquitto'), owner });
    stops.push(broker.stop);
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
  return stops;
}
