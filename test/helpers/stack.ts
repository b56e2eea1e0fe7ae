import { randomBytes, randomUUID } from 'node:crypto';
import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createLogger } from '../../common/logger';
import { createMqttClient } from '../../common/mqtt';
import { createRedis, WORKER_REDIS_COMMAND_TIMEOUT_MS, type Redis } from '../../common/redis';
import type { Config } from '../../common/config';
import { keys } from '../../common/redis-keys';
import { createPinSeriesStore } from '../../store/pin-series';
import { createPgPool } from '../../store/pg/pool';
import { composeGateway, type ComposedGateway } from '../../gateway/compose';
import { createTwinWorker } from '../../workers/create-worker';
import { temporalLogger } from '../../workers/temporal-logger';
import { testConfig } from '../harness/config';
import { httpClient, type Request } from './http';
import { eventually } from './wait';
import { workflowBundle } from './workflow-bundle';
import { startWorkerProcess } from '../twin/support/worker-process';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface StackNode {
  request: Request;
  baseUrl: string;
  composed: ComposedGateway;
  /** GET /metrics of this node (served on its own metrics port). */
  metricsUrl: string;
  /** GET /metrics of this node, parsed into series (name with its labels) → value. */
  metrics(): Promise<Record<string, number>>;
}

export interface Stack extends StackNode {
  config: Config;
  nodes: StackNode[];
  /** A separate connection for tests to look into Redis. */
  redis: Redis;
  /** Every stored point of a pin (PostgreSQL), oldest first, once the points written before the call are persisted. */
  history(deviceId: string, pin: string): Promise<{ value: string; timestamp: string }[]>;
  /** Stops the twin worker (unless killed) and starts a new one on the same task queue (with `worker`). */
  restartWorker(): Promise<void>;
  /** SIGKILLs the twin worker's process (with `worker: 'process'`) and resolves once it is gone. */
  killWorker(): Promise<void>;
  stop(): Promise<void>;
}

export interface StackOptions {
  overrides?: Record<string, string>;
  /** Gateway nodes sharing one Redis, broker and Temporal (default 1). */
  nodes?: number;
  /**
   * Run a twin worker on the stack's task queue (default false): in the test's process (`true`),
   * or as its own process, the real entry point workers/main.ts (`'process'`), which killWorker ends.
   */
  worker?: boolean | 'process';
}

async function startNode(config: Config, credentialKey: string): Promise<StackNode> {
  const composed = await composeGateway(config, createLogger(config.LOG_LEVEL, 'test-gateway'), credentialKey);
  const port = await composed.gateway.listen(0, '127.0.0.1');
  const baseUrl = `http://127.0.0.1:${port}`;
  const metricsUrl = `http://127.0.0.1:${await composed.gateway.listenMetrics(0, '127.0.0.1')}/metrics`;
  const request = httpClient(baseUrl);
  // Up to 30 s: on a loaded machine a node's first subscriptions can take more than 10.
  await eventually(async () => {
    const ready = await request('GET', '/readyz');
    if (ready.status !== 200) throw new Error(`node not ready: ${ready.text}`);
  }, 30_000);
  return {
    request,
    baseUrl,
    composed,
    metricsUrl,
    async metrics() {
      const res = await fetch(metricsUrl);
      const lines = (await res.text()).split('\n').filter((l) => l && !l.startsWith('#'));
      return Object.fromEntries(lines.map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]));
    },
  };
}

let runtimeInstalled = false;

/** Routes the Temporal SDK's own logs into the (silent in tests) pino logger, once per process. */
function installRuntime(config: Config): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: temporalLogger(createLogger(config.LOG_LEVEL, 'temporal')), shutdownSignals: [] });
}

async function startWorker(config: Config): Promise<{ stop(): Promise<void> }> {
  installRuntime(config);
  const redis = createRedis(config, 'test-worker', WORKER_REDIS_COMMAND_TIMEOUT_MS);
  const mqtt = createMqttClient(config, 'test-worker');
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS as string });
  const worker: Worker = await createTwinWorker({
    config,
    connection,
    redis,
    mqtt,
    logger: createLogger(config.LOG_LEVEL, 'test-worker'),
    workflowBundle: { code: (await workflowBundle()).code },
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await Promise.allSettled([mqtt.endAsync(), redis.quit(), connection.close()]);
    },
  };
}

/** The twin worker as its own process (workers/main.ts) on the stack's task queue and topic root. */
async function startWorkerChild(config: Config, overrides: Record<string, string> = {}): Promise<RunningWorker> {
  const { child, exited } = await startWorkerProcess({
    TEMPORAL_TASK_QUEUE: config.TEMPORAL_TASK_QUEUE,
    MQTT_TOPIC_ROOT: config.MQTT_TOPIC_ROOT,
    SHUTDOWN_GRACE_MS: String(config.SHUTDOWN_GRACE_MS),
    ...overrides,
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}

interface RunningWorker {
  stop(): Promise<void>;
  kill?(): Promise<void>;
}

/** Real gateway nodes on free ports (and optionally a twin worker), wired to this run's servers. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const config = testConfig({
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    // Test files share one broker: a topic root of their own keeps each stack's shared
    // subscription from taking another stack's device messages.
    MQTT_TOPIC_ROOT: `t${randomUUID().slice(0, 8)}`,
    ADMIN_TOKEN,
    SHUTDOWN_GRACE_MS: '2000',
    MQTT_INGEST_CONNECTIONS: '2',
    ...options.overrides,
  });
  const credentialKey = randomBytes(32).toString('hex');
  const nodes: StackNode[] = [];
  // Each node has a name of its own: its broker sessions are named after it.
  for (let i = 0; i < (options.nodes ?? 1); i++) nodes.push(await startNode({ ...config, NODE_ID: `test-${randomUUID()}` }, credentialKey));
  const launch = () => (options.worker === 'process' ? startWorkerChild(config, options.overrides) : startWorker(config));
  let worker: RunningWorker | null = options.worker ? await launch() : null;
  // The tests' own look into Redis: a generous deadline, so a loaded machine does not fail a test
  // the product passed.
  const redis = createRedis(config, 'test-inspector', WORKER_REDIS_COMMAND_TIMEOUT_MS);
  const pool = createPgPool(config.DATABASE_URL as string, 'test-inspector', { max: 2 });
  const series = createPinSeriesStore(redis, pool, keys.historyStream(config.TEMPORAL_TASK_QUEUE));
  const first = nodes[0] as StackNode;
  return {
    ...first,
    config,
    nodes,
    redis,
    history: (deviceId, pin) => series.text(deviceId, pin, { from: null, to: null, limit: 1_000_000 }),
    async restartWorker() {
      await worker?.stop();
      worker = await launch();
    },
    async killWorker() {
      if (!worker?.kill) throw new Error("killWorker needs a stack started with worker: 'process'");
      await worker.kill();
    },
    async stop() {
      await Promise.all(nodes.map((n) => n.composed.stop()));
      await worker?.stop();
      await Promise.all([redis.quit(), pool.end()]);
    },
  };
}
