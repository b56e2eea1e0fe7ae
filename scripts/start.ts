import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { ConfigError, loadConfig } from '../common/config';
import { localCredentialKey } from '../common/credential-key';
import { createLogger } from '../common/logger';
import { createMqttClient } from '../common/mqtt';
import { createRedis, WORKER_REDIS_COMMAND_TIMEOUT_MS } from '../common/redis';
import { guardProcess } from '../common/process-guards';
import { onShutdownSignal } from '../common/shutdown';
import { composeGateway } from '../gateway/compose';
import { createTwinWorker } from '../workers/create-worker';
import { temporalLogger } from '../workers/temporal-logger';
import { startMosquitto, startPostgres, startRedis, startTemporal } from './dev-servers';
import { writeLocalEndpoints } from './local-endpoints';

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
 * `npm start`: one node with everything, for a laptop (DESIGN §10). Uses TEMPORAL_ADDRESS,
 * REDIS_URL, MQTT_URL and DATABASE_URL when set; otherwise starts a local Temporal dev server
 * (persisting to ./data), a local redis-server / mosquitto when nothing answers on 6379 / 1883,
 * and a private PostgreSQL cluster in ./data/pg on a free port.
 */
async function main(): Promise<void> {
  const dataDir = resolve('data');
  mkdirSync(dataDir, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  const stops: (() => Promise<void>)[] = [];

  if (!env.TEMPORAL_ADDRESS) {
    const temporal = await startTemporal({ dir: dataDir, dbFile: join(dataDir, 'temporal.db') });
    stops.push(temporal.stop);
    env.TEMPORAL_ADDRESS = temporal.address;
  }
  if (!env.REDIS_URL && !(await listening('127.0.0.1', 6379))) {
    const redisServer = await startRedis({ dir: dataDir });
    stops.push(redisServer.stop);
    env.REDIS_URL = redisServer.url;
  }
  if (!env.MQTT_URL && !(await listening('127.0.0.1', 1883))) {
    const broker = await startMosquitto({ dir: dataDir });
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
    const postgres = await startPostgres({ dir: dataDir, dataDir: join(dataDir, 'pg'), durable: true });
    stops.push(postgres.stop);
    env.DATABASE_URL = postgres.url;
  }

  const config = loadConfig(env);
  const logger = createLogger(config.LOG_LEVEL, 'dds', { pretty: process.stdout.isTTY === true });
  Runtime.install({ logger: temporalLogger(logger.child({ component: 'temporal' })), shutdownSignals: [] });
  const composed = await composeGateway(config, logger, localCredentialKey(config, join(dataDir, 'credential.key')));

  const workerRedis = createRedis(config, 'dds-worker', WORKER_REDIS_COMMAND_TIMEOUT_MS);
  const workerMqtt = createMqttClient(config, 'worker');
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS as string });
  const worker = await createTwinWorker({ config, connection, redis: workerRedis, mqtt: workerMqtt, logger });
  const running = worker.run();
  // A lost worker ends the node on purpose (docs/architecture.md): a node without it serves no twin.
  running.catch((err: unknown) => {
    logger.fatal({ err }, 'twin worker failed; exiting');
    process.exit(1);
  });

  const port = await composed.gateway.listen(config.PORT);
  const metricsPort = await composed.gateway.listenMetrics();
  guardProcess(logger, composed.gateway.metrics);
  const url = `http://localhost:${port}`;
  const metricsUrl = `http://localhost:${metricsPort}/metrics`;
  writeLocalEndpoints(dataDir, { url, mqttUrl: config.MQTT_URL, topicRoot: config.MQTT_TOPIC_ROOT, metricsUrl });
  logger.info(
    `Device Data Service is up: API ${url}/api/v1 · dashboard ${url}/ · docs ${url}/docs · metrics ${metricsUrl} · MQTT ${config.MQTT_URL}`,
  );

  onShutdownSignal(logger, async () => {
    await composed.stop();
    worker.shutdown();
    await running;
    await Promise.allSettled([workerMqtt.endAsync(), workerRedis.quit(), connection.close()]);
    for (const stop of stops.reverse()) await stop();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
