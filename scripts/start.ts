import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { ConfigError, configSchema, loadConfig } from '../common/config';
import { localCredentialKey } from '../common/credential-key';
import { createLogger } from '../common/logger';
import { createMqttClient } from '../common/mqtt';
import { createRedis, WORKER_REDIS_COMMAND_TIMEOUT_MS } from '../common/redis';
import { guardProcess } from '../common/process-guards';
import { onShutdownSignal } from '../common/shutdown';
import { composeGateway } from '../gateway/compose';
import { createTwinWorker } from '../workers/create-worker';
import { temporalLogger } from '../workers/temporal-logger';
import { canDieWithParent } from './dev-servers/die-with-parent';
import { writeLocalEndpoints } from './local-endpoints';
import { recordChildren } from './start/children';
import { stopLeftovers } from './start/leftovers';
import { startLocalServers } from './start/local-servers';

/**
 * `npm start`: one node with everything, for a laptop (DESIGN §10). Uses TEMPORAL_ADDRESS,
 * REDIS_URL, MQTT_URL and DATABASE_URL when set; otherwise starts the servers it lacks, keeping
 * their data in ./data (start/local-servers.ts). It owns them: they die with it where Linux's
 * setpriv allows, and a start first stops what a crashed earlier run left (start/leftovers.ts).
 */
async function main(): Promise<void> {
  const dataDir = resolve('data');
  mkdirSync(dataDir, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The config's own level, before the config can be loaded (it needs the servers' addresses); a bad value fails loadConfig below.
  const logLevel = configSchema.shape.LOG_LEVEL.catch('info').parse(env.LOG_LEVEL);
  const logger = createLogger(logLevel, 'dds', { pretty: process.stdout.isTTY === true });

  await stopLeftovers(dataDir, logger);
  const children = recordChildren(dataDir);
  logger.info(
    canDieWithParent()
      ? 'servers started here get SIGTERM when this process dies, however it dies (setpriv --pdeathsig)'
      : 'no setpriv --pdeathsig here: servers started here outlive a crash of this process until the next npm start stops them',
  );
  const { stops, deviceTls } = await startLocalServers(dataDir, env, children, logger);

  const config = loadConfig(env);
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
  writeLocalEndpoints(dataDir, {
    url,
    mqttUrl: deviceTls?.url ?? config.MQTT_URL,
    ...(deviceTls ? { caFile: deviceTls.caFile } : {}),
    topicRoot: config.MQTT_TOPIC_ROOT,
    metricsUrl,
  });
  logger.info(
    `Device Data Service is up: API ${url}/api/v1 · dashboard ${url}/ · docs ${url}/docs · metrics ${metricsUrl} · MQTT ${config.MQTT_URL}` +
      (deviceTls ? ` · MQTT over TLS ${deviceTls.url} (devices verify it with the CA file ${deviceTls.caFile})` : ''),
  );

  onShutdownSignal(logger, async () => {
    await composed.stop();
    worker.shutdown();
    await running;
    await Promise.allSettled([workerMqtt.endAsync(), workerRedis.quit(), connection.close()]);
    for (const stop of stops.reverse()) await stop();
    children.clear();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof ConfigError ? err.message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
