/**
 * A twin test bench on the harness's real servers: its own task queue, its own Worker made by
 * createTwinWorker, a TwinClient, and helpers that stand for what other parts of the service
 * write to Redis (the device hash, rules, the gateway's hot-path writes).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import mqtt from 'mqtt';
import type { Config } from '../../common/config';
import type { NotificationRecord, NotificationRule } from '../../common/contracts';
import { createLogger } from '../../common/logger';
import { createMqttClient, mqttConnected, type MqttClient } from '../../common/mqtt';
import { createRedis, WORKER_REDIS_COMMAND_TIMEOUT_MS, type Redis } from '../../common/redis';
import { keys, streamOf } from '../../common/redis-keys';
import { createTwinClient, type TwinClient } from '../../gateway/temporal/twin-client';
import { createDeviceStore, newDevice } from '../../store/devices';
import { createPendingCommandStore } from '../../store/pending-commands';
import { createProjectStore } from '../../store/projects';
import { createRuleStore } from '../../store/rules';
import { storePoint } from '../../store/store-point';
import { createTwinWorker } from '../../workers/create-worker';
import { testConfig } from '../harness/config';
import { eventually, sleep } from '../helpers/wait';
import { workflowBundle } from '../helpers/workflow-bundle';

export { eventually, sleep };

export interface TwinTestEnv {
  config: Config;
  taskQueue: string;
  redis: Redis;
  mqtt: MqttClient;
  client: Client;
  twins: TwinClient;
  worker(): Worker;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  cleanup(): Promise<void>;
}

/** The SDK's own logs: warnings and errors only (once per process; a later file finds it installed). */
export function quietTemporalLogs(): void {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed in this process
  }
}

/** A worker of its own on a task queue of its own; `overrides` point it at other servers (a fault test's own Redis). */
export async function createTwinTestEnv(name: string, heartbeatTimeoutS = 2, overrides: Record<string, string> = {}): Promise<TwinTestEnv> {
  quietTemporalLogs();
  const config = testConfig({ DEVICE_HEARTBEAT_TIMEOUT_S: String(heartbeatTimeoutS), SHUTDOWN_GRACE_MS: '2000', ...overrides });
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is not set');
  const taskQueue = `twin-${name}-${randomUUID().slice(0, 8)}`;
  const logger = createLogger(config.LOG_LEVEL, `test-${name}`);
  const redis = createRedis(config, `test-${name}`, WORKER_REDIS_COMMAND_TIMEOUT_MS);
  const mqttClient = createMqttClient(config, `test-${name}`);
  await mqttConnected(mqttClient);
  const clientConnection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  const client = new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE });
  const twins = createTwinClient({ client, taskQueue, heartbeatTimeoutS });
  const workflowBundleCode = await workflowBundle();

  let connection: NativeConnection | undefined;
  let current: Worker | undefined;
  let running: Promise<void> | undefined;

  const env: TwinTestEnv = {
    config,
    taskQueue,
    redis,
    mqtt: mqttClient,
    client,
    twins,
    worker() {
      if (!current) throw new Error('no worker running');
      return current;
    },
    async startWorker() {
      if (running) throw new Error('worker already running');
      connection ??= await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
      current = await createTwinWorker({
        config,
        connection,
        redis,
        mqtt: mqttClient,
        logger,
        taskQueue,
        workflowBundle: { code: workflowBundleCode.code },
      });
      running = current.run();
    },
    async stopWorker() {
      if (!current || !running) return;
      if (current.getState() === 'RUNNING') current.shutdown();
      await running;
      current = undefined;
      running = undefined;
    },
    async cleanup() {
      await env.stopWorker();
      await Promise.allSettled([connection?.close(), clientConnection.close(), mqttClient.endAsync(), redis.quit()]);
    },
  };
  await env.startWorker();
  return env;
}

/**
 * A device created by the device store in a project of its own, as the management API creates it
 * (without starting its twin: its twin-start intent goes to an outbox no relay reads, and is
 * dropped here).
 */
export async function createDevice(redis: Redis): Promise<{ deviceId: string; projectId: string }> {
  const outbox = keys.outbox(`twin-tests-${randomUUID()}`);
  const ownerId = randomUUID();
  const { id: projectId } = await createProjectStore(redis, outbox).create(ownerId, 'test project', '', {
    resource: 'projects',
    limit: null,
  });
  const fresh = newDevice(projectId, { name: 'test device', description: '', tags: [] });
  const created = await createDeviceStore(redis, randomBytes(32).toString('hex'), outbox).create([fresh], ownerId);
  if (!created.created) throw new Error('device create refused');
  await redis.del(streamOf(outbox, projectId));
  return { deviceId: fresh.device.id, projectId };
}

/** A rule created by the rule store, as the management API creates it (the twin is told by the caller; its intent is dropped). */
export async function addRule(
  redis: Redis,
  device: { deviceId: string; projectId: string },
  rule: Pick<NotificationRule, 'condition'> & Partial<NotificationRule>,
): Promise<NotificationRule> {
  const full: NotificationRule = {
    id: randomUUID(),
    projectId: device.projectId,
    scope: 'device',
    deviceId: device.deviceId,
    templateId: null,
    tag: null,
    pin: null,
    threshold: null,
    duration: null,
    message: '',
    channels: ['inApp'],
    enabled: true,
    createdAt: new Date().toISOString(),
    ...rule,
  };
  const outbox = keys.outbox(`twin-tests-${randomUUID()}`);
  if (!(await createRuleStore(redis, outbox).create(full, { resource: 'rules', limit: null })))
    throw new Error('the rule store refused the rule');
  await redis.del(streamOf(outbox, full.deviceId ?? full.projectId));
  await redis.del(streamOf(outbox, full.projectId));
  return full;
}

/** Stands for the gateway's ingest: a write toward a device that is not online is kept for it. */
export async function keepCommand(redis: Redis, deviceId: string, pin: string, value: string): Promise<void> {
  await createPendingCommandStore(redis).keep(deviceId, pin, value);
}

/** One message from the device on a pin, stored by the ingest pipeline's own write (store/store-point.ts). */
export async function deviceMessage(redis: Redis, deviceId: string, pin: string, value: string, at = new Date()): Promise<void> {
  await storePoint(redis, {
    deviceId,
    pin,
    value,
    at,
    // Nothing drains this stream in these tests: the points are not read back.
    historyStream: keys.historyStream('no-history'),
    historyStreamMax: 1_000_000,
    towardDevice: false,
    fromDevice: true,
    // The tests signal the twin themselves when they mean to; the wake marker they leave lapses.
    wakeTtlS: 1,
    ruleStates: [],
    outbox: keys.outbox('no-rules'),
  });
}

export async function mirror(redis: Redis, deviceId: string): Promise<Record<string, string>> {
  return redis.hgetall(keys.deviceState(deviceId));
}

export async function notificationsOf(redis: Redis, projectId: string): Promise<NotificationRecord[]> {
  const ids = await redis.zrange(keys.projectNotifications(projectId), '0', '-1');
  if (ids.length === 0) return [];
  const docs = await redis.mget(...ids.map((id) => keys.notification(id)));
  return docs.flatMap((d) => (d ? [JSON.parse(d) as NotificationRecord] : []));
}

/** A separate MQTT client subscribed to a device's command topics, as the device would be. */
export async function commandSubscriber(
  config: Config,
  deviceId: string,
): Promise<{ messages: Array<{ topic: string; value: string; qos: number }>; close(): Promise<void> }> {
  const client = await mqtt.connectAsync(config.MQTT_URL, {
    clientId: `test-device-${randomUUID().slice(0, 8)}`,
    username: config.MQTT_USERNAME,
    password: config.MQTT_PASSWORD,
    protocolVersion: 5,
  });
  const messages: Array<{ topic: string; value: string; qos: number }> = [];
  client.on('message', (topic, payload, packet) => messages.push({ topic, value: payload.toString('utf8'), qos: packet.qos }));
  await client.subscribeAsync(`${config.MQTT_TOPIC_ROOT}/${deviceId}/pin/+/set`, { qos: 1 });
  return { messages, close: () => client.endAsync() };
}
