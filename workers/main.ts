/**
 * Worker entry: runs the device twins. Needs TEMPORAL_ADDRESS, REDIS_URL and MQTT_URL (with
 * MQTT_USERNAME / MQTT_PASSWORD when the broker authenticates). SIGTERM or SIGINT stops polling,
 * lets running tasks finish (up to SHUTDOWN_GRACE_MS), then closes every client.
 */
import { NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig } from '../common/config';
import { createLogger } from '../common/logger';
import { createMqttClient, mqttConnected } from '../common/mqtt';
import { guardProcess } from '../common/process-guards';
import { createRedis, WORKER_REDIS_COMMAND_TIMEOUT_MS } from '../common/redis';
import { createTwinWorker } from './create-worker';
import { temporalLogger } from './temporal-logger';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'dds-worker');
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for a worker');
  Runtime.install({ logger: temporalLogger(logger.child({ component: 'temporal' })), shutdownSignals: [] });

  const redis = createRedis(config, 'dds-worker', WORKER_REDIS_COMMAND_TIMEOUT_MS);
  const mqtt = createMqttClient(config, 'worker');
  mqtt.on('error', (err) => logger.warn({ err: err.message }, 'mqtt error'));
  await mqttConnected(mqtt, 15000).catch((err: unknown) =>
    logger.warn({ err: String(err) }, 'broker not reachable yet; commands wait for it'),
  );
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await createTwinWorker({ config, connection, redis, mqtt, logger });

  const stop = (signal: NodeJS.Signals): void => {
    if (worker.getState() !== 'RUNNING') return;
    logger.info({ signal }, 'shutting down');
    worker.shutdown();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  guardProcess(logger);
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'twin worker running');
  try {
    await worker.run();
  } finally {
    await Promise.allSettled([mqtt.endAsync(), redis.quit(), connection.close()]);
    logger.info('twin worker stopped');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`worker failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
