import type { Config } from '../common/config';
import type { Logger } from '../common/logger';
import type { MqttClient } from '../common/mqtt';
import { createRedis, type Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { createIngest, type Ingest } from '../gateway/ingest/ingest';
import { createThresholdRuleCache } from '../gateway/ingest/threshold-rules';
import { createStatusAhead } from '../gateway/temporal/status-ahead';
import { createCommandStore } from '../store/commands';
import { createIngestStore } from '../store/ingest-store';

/**
 * The ingest pipeline in the worker, for the sends of command jobs (docs/jobs.md): the very
 * `createIngest` the management write endpoint goes through, so each send is an ordinary app write
 * with its command receipt, its lock check, its rules and its kept-for-the-twin path. Its rule
 * cache listens for rule changes on a connection of its own, closed when `redis` ends.
 */
export function createJobIngest(config: Config, redis: Redis, mqtt: MqttClient, logger: Logger): Ingest {
  const queue = config.TEMPORAL_TASK_QUEUE;
  const store = createIngestStore(redis, createCommandStore(redis), {
    historyStream: keys.historyStream(queue),
    historyStreamMax: config.HISTORY_STREAM_MAX,
    outbox: keys.outbox(queue),
    unsentCommands: keys.unsentCommands(queue),
  });
  const rulesSub = createRedis(config, 'dds-worker-rules-sub');
  rulesSub.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error (rules subscriber)'));
  redis.once('end', () => rulesSub.disconnect());
  const rules = createThresholdRuleCache(store, rulesSub, logger);
  rules.ready().catch((err: unknown) => logger.warn({ err }, 'rule changes not subscribed yet; cached rules expire within a minute'));
  return createIngest({
    store,
    mqtt,
    statusAhead: createStatusAhead({ redis, outbox: keys.onlineOutbox(queue) }),
    rules,
    logger,
    topicRoot: config.MQTT_TOPIC_ROOT,
    notifyIntervalMs: config.THRESHOLD_NOTIFY_INTERVAL_S * 1000,
    deviceBurstS: config.DEVICE_VALUES_BURST_S,
  });
}
