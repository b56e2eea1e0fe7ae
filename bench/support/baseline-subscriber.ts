/**
 * The baseline: a bare mqtt.js subscriber, connected and subscribed (shared, QoS 1) as the
 * service is, that does the same Redis writes as the ingest pipeline (latest value as JSON,
 * history point, lastSeen) in one pipeline per message, and nothing else.
 * Run by baseline-process.ts as a child process; reads its settings from the environment.
 */
import { Redis } from 'ioredis';
import { createMqttClient } from '../../common/mqtt';
import { deviceTopicFilters } from '../../common/mqtt-topics';
import { keys } from '../../common/redis-keys';
import { BASELINE_KEY_PREFIX, baselineHistoryKey, type BaselineCommand, type BaselineEvent } from './baseline-protocol';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

function send(event: BaselineEvent): void {
  process.send?.(event);
}

function main(): void {
  const root = required('BASELINE_TOPIC_ROOT');
  const redis = new Redis(required('REDIS_URL'), { connectionName: 'bench-baseline' });
  // The service's own connection settings (MQTT 5) and its shared-subscription filter, so only the
  // work done per message differs.
  const client = createMqttClient(
    { MQTT_URL: required('MQTT_URL'), MQTT_USERNAME: required('MQTT_USERNAME'), MQTT_PASSWORD: required('MQTT_PASSWORD') },
    'bench-baseline',
  );
  const [pinFilter] = deviceTopicFilters(root, 'bench-baseline');
  const report: Extract<BaselineEvent, { type: 'report' }> = { type: 'report', written: 0, failed: 0, latencies: [], ackTimes: [] };

  client.on('connect', () => {
    client.subscribeAsync(pinFilter as string, { qos: 1 }).then(
      () => send({ type: 'ready' }),
      (err: unknown) => {
        process.stderr.write(`baseline subscribe failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  });
  client.on('message', (topic, payload) => {
    const [, deviceId = '', , pin = ''] = topic.split('/');
    const value = payload.toString('utf8');
    const now = Date.now();
    const iso = new Date(now).toISOString();
    redis
      .pipeline()
      .hset(BASELINE_KEY_PREFIX + keys.devicePins(deviceId), pin, JSON.stringify({ value, updatedAt: iso }))
      .zadd(baselineHistoryKey(deviceId, pin), now, `${now}:${value}`)
      .hset(BASELINE_KEY_PREFIX + keys.deviceState(deviceId), 'lastSeen', iso)
      .exec()
      .then(
        () => {
          const ackedAt = Date.now();
          report.written += 1;
          report.latencies.push(ackedAt - Number(value));
          report.ackTimes.push(ackedAt);
        },
        () => (report.failed += 1),
      );
  });
  process.on('message', (command: BaselineCommand) => {
    if (command.type === 'report') send(report);
  });
  process.on('disconnect', () => process.exit(0));
}

main();
