import { randomUUID } from 'node:crypto';
import { Client, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { Config } from '../common/config';
import type { Logger } from '../common/logger';
import { createMetrics } from '../common/metrics';
import { createMqttClient, createMqttSessionClient } from '../common/mqtt';
import { createRedis, type Redis } from '../common/redis';
import { keys, SHARDS, shardStreams } from '../common/redis-keys';
import { createStores } from '../store';
import { openHistoryDatabase } from '../store/pg/history-db';
import { startHistoryPersister } from './history/persister';
import { createPointWriter } from './history/point-writer';
import { createGateway, type Gateway } from './app';
import { createIngest } from './ingest/ingest';
import { meteredIngest } from './ingest/metered-ingest';
import { createThresholdRuleCache } from './ingest/threshold-rules';
import { brokerCredentialsFromConfig } from './mqtt/broker-credentials';
import { startMqttBridge } from './mqtt/bridge';
import { createDeviceRates } from './mqtt/device-rates';
import { createNotifier } from './temporal/notifier';
import { carryOutIntents } from './outbox/carry-out';
import { carryOutNow } from './outbox/carry-out-now';
import { relayedStreams, startOutboxRelays } from './outbox/relays';
import { createHeldTwinMessages } from '../store/twin-messages';
import { fleetCatchUp } from '../store/fleet-catch-up';
import { startCommandResender } from './mqtt/command-resender';
import { createTokenRotation } from './devices/rotate-device-token';
import { createWidgetLocks } from './devices/widget-locks';
import { createStatusAhead } from './temporal/status-ahead';
import { connectTemporal } from './temporal/temporal-deadline';
import { createTwinClient } from './temporal/twin-client';
import { createJobClient } from './temporal/job-client';

/** The outbox connection's command deadline: above the relay's 1 s XREADGROUP block. */
const OUTBOX_COMMAND_TIMEOUT_MS = 5_000;

export interface ComposedGateway {
  gateway: Gateway;
  /** Graceful stop: no new requests, in-flight ones finish, then every client is closed. */
  stop(): Promise<void>;
}

/** Connects a gateway node to Redis, the broker and Temporal, from validated config. */
export async function composeGateway(config: Config, logger: Logger, credentialKey: string): Promise<ComposedGateway> {
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required for a gateway node');
  if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required for a gateway node: pin history lives in PostgreSQL');
  const nodeId = randomUUID().slice(0, 8);
  // Migrated and maintained by every node at start; a node that cannot reach it does not start.
  const historyDb = await openHistoryDatabase(
    config.DATABASE_URL,
    `dds-gateway-${config.NODE_ID}`,
    config.HISTORY_RETENTION_DAYS,
    logger.child({ component: 'history-db' }),
  );
  const redis = createRedis(config, `dds-gateway-${nodeId}`);
  const sub = createRedis(config, `dds-sio-sub-${nodeId}`);
  const rulesSub = createRedis(config, `dds-rules-sub-${nodeId}`);
  // One relay and one persister per shard's stream (docs/architecture.md "Redis Cluster"), each on a
  // connection of its own: its XREADGROUP blocks for up to a second, so the deadline is longer than that.
  const outboxStreams = relayedStreams(config.TEMPORAL_TASK_QUEUE);
  const historyStreams = shardStreams(keys.historyStream(config.TEMPORAL_TASK_QUEUE));
  const outboxRedis = outboxStreams.map(({ online }, k) =>
    createRedis(config, `dds-outbox${online ? '-online' : ''}-${nodeId}-s${k % SHARDS}`, OUTBOX_COMMAND_TIMEOUT_MS),
  );
  const historyRedis = historyStreams.map((_, k) => createRedis(config, `dds-history-${nodeId}-s${k}`, OUTBOX_COMMAND_TIMEOUT_MS));
  for (const client of [redis, sub, rulesSub, ...outboxRedis, ...historyRedis]) {
    client.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  }
  const mqtt = createMqttClient(config, `gateway-${nodeId}`);
  mqtt.on('error', (err) => logger.warn({ err: err.message }, 'mqtt error'));
  // A Temporal that refuses connections fails a call after 3 quick attempts (~0.6 s), not the
  // SDK's default 10 with backoff; slow answers are ended by each call's deadline (temporal/twin-client.ts).
  const connection = await connectTemporal({
    address: config.TEMPORAL_ADDRESS,
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 3 }))],
  });
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  const metrics = createMetrics();
  const twins = createTwinClient({
    client,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    heartbeatTimeoutS: config.DEVICE_HEARTBEAT_TIMEOUT_S,
    onCall: (kind, name, outcome) => metrics.twin.call(kind, name, outcome),
  });
  const broker = await brokerCredentialsFromConfig(config, logger);

  const stores = createStores(redis, historyDb.pool, config, credentialKey);
  const rules = createThresholdRuleCache(stores.ingest, rulesSub, logger);
  const notify = createNotifier(client, config.TEMPORAL_TASK_QUEUE);
  const outbox = keys.outbox(config.TEMPORAL_TASK_QUEUE);
  const twinOutbox = keys.onlineOutbox(config.TEMPORAL_TASK_QUEUE);
  const tokens = createTokenRotation({ devices: stores.devices, broker, redis, outbox, twinOutbox, credentialKey, logger });
  const widgetLocks = createWidgetLocks({ twins, widgets: stores.widgets, redis, outbox, logger });
  const carryOut = carryOutIntents({
    notification: notify,
    twins,
    broker,
    history: stores.pinSeries,
    tokens,
    widgetLocks,
    held: createHeldTwinMessages(redis),
    fleet: (projectId, change) => fleetCatchUp(redis, outbox, projectId, change),
  });
  const relays = await startOutboxRelays({
    streams: outboxStreams.map((s, k) => ({ ...s, redis: outboxRedis[k] as Redis })),
    redis,
    consumer: config.NODE_ID,
    handle: carryOut,
    logger,
    onlineSlots: config.ONLINE_RELAY_SLOTS,
  });
  metrics.outbox.backlog(() => relays.reduce((sum, relay) => sum + relay.backlog(), 0));
  const pointWriter = createPointWriter(historyDb.pool);
  const persisters = await Promise.all(
    historyStreams.map((stream, k) =>
      startHistoryPersister({
        redis: historyRedis[k] as Redis,
        writer: pointWriter,
        stream,
        consumer: config.NODE_ID,
        retentionDays: config.HISTORY_RETENTION_DAYS,
        lingerMs: config.HISTORY_LINGER_MS,
        logger: logger.child({ component: 'history-persister', shard: k }),
      }),
    ),
  );
  const lags = () => persisters.map((persister) => persister.lag());
  metrics.gauge('dds_history_backlog', "Points written and not yet persisted to PostgreSQL (the history streams' length)", () =>
    lags().reduce((sum, lag) => sum + lag.backlog, 0),
  );
  metrics.gauge('dds_history_lag_seconds', 'Age of the oldest point not yet persisted to PostgreSQL (0 when none)', () =>
    Math.max(0, ...lags().map((lag) => lag.lagSeconds)),
  );
  const statusAhead = createStatusAhead({ redis, outbox: twinOutbox });
  const ingest = createIngest({
    store: stores.ingest,
    mqtt,
    statusAhead,
    rules,
    logger,
    topicRoot: config.MQTT_TOPIC_ROOT,
    notifyIntervalMs: config.THRESHOLD_NOTIFY_INTERVAL_S * 1000,
    deviceBurstS: config.DEVICE_VALUES_BURST_S,
  });
  const ingestClients = Array.from({ length: config.MQTT_INGEST_CONNECTIONS }, (_, n) =>
    createMqttSessionClient(config, `dds-gw-${config.NODE_ID}-${n}`, config.MQTT_INGEST_IN_FLIGHT),
  );
  for (const client of ingestClients) client.on('error', (err) => logger.warn({ err: err.message }, 'mqtt ingest connection error'));
  const resender = startCommandResender({
    redis,
    mqtt,
    key: keys.unsentCommands(config.TEMPORAL_TASK_QUEUE),
    topicRoot: config.MQTT_TOPIC_ROOT,
    logger: logger.child({ component: 'command-resender' }),
  });
  const bridge = startMqttBridge({
    clients: ingestClients,
    inFlightPerConnection: config.MQTT_INGEST_IN_FLIGHT,
    lingerMs: config.INGEST_LINGER_MS,
    redis,
    ingest: meteredIngest(ingest, metrics, 'mqtt'),
    rates: createDeviceRates({ redis, stores, config }),
    twinOutbox,
    statusAhead,
    logger,
    metrics,
    topicRoot: config.MQTT_TOPIC_ROOT,
  });

  const gateway = createGateway({
    config,
    logger,
    stores,
    twins,
    jobRuns: createJobClient(client, config.TEMPORAL_TASK_QUEUE),
    ingest,
    broker,
    notify,
    carryOutNow: carryOutNow({ redis, handle: carryOut, logger }),
    tokens,
    widgetLocks,
    metrics,
    pub: redis,
    sub,
    readiness: {
      redis: async () => {
        await redis.ping();
      },
      temporal: async () => {
        await connection.healthService.check({});
      },
      mqtt: () => bridge.check(),
      ingest: () => bridge.ingestCheck(),
      rules: () => rules.ready(),
    },
  });

  return {
    gateway,
    async stop() {
      await gateway.close();
      await bridge.stop(config.SHUTDOWN_GRACE_MS);
      await ingest.drain();
      await resender.stop();
      await Promise.all(relays.map((relay) => relay.stop()));
      await Promise.all(persisters.map((persister) => persister.stop()));
      await Promise.allSettled([
        mqtt.endAsync(),
        ...ingestClients.map((c) => c.endAsync()),
        broker.close(),
        connection.close(),
        historyDb.close(),
      ]);
      // The relays ended their own connections (outboxRedis) as they stopped.
      await Promise.allSettled([redis, sub, rulesSub, ...historyRedis].map((client) => client.quit()));
    },
  };
}
