import { z } from 'zod';
import type { Logger } from '../../common/logger';
import type { Metrics } from '../../common/metrics';
import type { MqttClient } from '../../common/mqtt';
import { deviceTopicFilters, parseDeviceTopic } from '../../common/mqtt-topics';
import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import type { Ingest } from '../ingest/ingest';
import type { TwinClient } from '../twin-client';

const statusPayload = z.enum(['online', 'offline']);
const infoPayload = z
  .object({
    firmwareVersion: z.string().max(64).optional(),
    ipAddress: z.string().max(64).optional(),
    hardwareType: z.string().max(64).optional(),
  })
  .strict();

export interface BridgeDeps {
  mqtt: MqttClient;
  redis: Redis;
  ingest: Ingest;
  twins: TwinClient;
  logger: Logger;
  metrics: Metrics;
  topicRoot: string;
}

/** Shared-subscription group: every gateway node joins it, so each device message is handled once. */
const SHARE_GROUP = 'dds-gateway';

/**
 * The MQTT bridge (DESIGN §6): device values go through the ingest pipeline; status and info go
 * to the device's twin. Malformed topics and payloads are ignored; oversized values are dropped.
 */
export function startMqttBridge(deps: BridgeDeps) {
  const { mqtt, logger } = deps;
  const counts = deps.metrics.mqtt;
  let subscribed = false;

  async function projectOf(deviceId: string): Promise<string | null> {
    return deps.redis.hget(keys.device(deviceId), 'projectId');
  }

  async function handle(topic: string, payload: Buffer): Promise<void> {
    const parsed = parseDeviceTopic(topic, deps.topicRoot);
    if (!parsed) return;
    counts.handled();
    const text = payload.toString('utf8');
    if (parsed.kind === 'pin') {
      const result = await deps.ingest({ deviceId: parsed.deviceId, pin: parsed.pin, value: text, origin: 'device' });
      if (!result.ok) {
        counts.dropped();
        logger.debug({ deviceId: parsed.deviceId, pin: parsed.pin, code: result.code }, 'mqtt value dropped');
      }
      return;
    }
    const projectId = await projectOf(parsed.deviceId);
    if (!projectId) return;
    const at = new Date().toISOString();
    if (parsed.kind === 'status') {
      const status = statusPayload.safeParse(text.trim());
      if (status.success) await deps.twins.status(parsed.deviceId, projectId, status.data, at);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return;
    }
    const info = infoPayload.safeParse(json);
    if (info.success) await deps.twins.info(parsed.deviceId, projectId, info.data);
  }

  const onMessage = (topic: string, payload: Buffer) => {
    const done = counts.received();
    handle(topic, payload)
      .catch((err: unknown) => logger.error({ err, topic }, 'mqtt message failed'))
      .finally(done);
  };
  const subscribe = () => {
    mqtt.subscribeAsync(deviceTopicFilters(deps.topicRoot, SHARE_GROUP), { qos: 1 }).then(
      () => (subscribed = true),
      (err: unknown) => logger.error({ err }, 'mqtt subscribe failed'),
    );
  };
  const lost = () => (subscribed = false);
  mqtt.on('message', onMessage);
  mqtt.on('connect', subscribe);
  mqtt.on('close', lost);
  if (mqtt.connected) subscribe();

  return {
    /** Readiness: rejects until the device topics are subscribed on a live connection. */
    async check(): Promise<void> {
      if (!mqtt.connected) throw new Error('not connected to the broker');
      if (!subscribed) throw new Error('device topics not subscribed yet');
    },
    stop() {
      mqtt.off('message', onMessage);
      mqtt.off('connect', subscribe);
      mqtt.off('close', lost);
    },
  };
}
