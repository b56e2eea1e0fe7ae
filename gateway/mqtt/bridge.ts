import { z } from 'zod';
import { withDeadline } from '../../common/deadline';
import { INFO_FIELD_MAX_LENGTH } from '../../common/device-info';
import type { Logger } from '../../common/logger';
import type { Metrics } from '../../common/metrics';
import type { MqttClient } from '../../common/mqtt';
import { deviceTopicFilters, isLastWill, parseDeviceTopic } from '../../common/mqtt-topics';
import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import type { Ingest } from '../ingest/ingest';
import type { StatusAhead } from '../status-ahead';
import type { TwinClient } from '../twin-client';
import { ackOnceHandled } from './acked-once-handled';
import { startQueueProbe } from './queue-probe';
import { sharedBeat } from './shared-beat';

const statusPayload = z.enum(['online', 'offline']);
const infoField = z.string().max(INFO_FIELD_MAX_LENGTH).optional();
const infoPayload = z.object({ firmwareVersion: infoField, ipAddress: infoField, hardwareType: infoField }).strict();

export interface BridgeDeps {
  /** The node's device-value connections (persistent sessions, common/mqtt.ts createMqttSessionClient). */
  clients: MqttClient[];
  /** How many values each connection handles at once (MQTT_INGEST_IN_FLIGHT). */
  inFlightPerConnection: number;
  /** How long a value waits for others to be stored together with it (INGEST_LINGER_MS, shared-beat.ts). */
  lingerMs: number;
  redis: Redis;
  ingest: Ingest;
  twins: TwinClient;
  /** Shows a device online ahead of its twin (reconnect storms, gateway/status-ahead.ts). */
  statusAhead: StatusAhead;
  logger: Logger;
  metrics: Metrics;
  topicRoot: string;
}

/** Shared-subscription group: every gateway node joins it, so each device message is handled once. */
const SHARE_GROUP = 'dds-gateway';
/** A message whose handling keeps failing (a dependency down) is retried this long, then left unacknowledged. */
const STORE_RETRY_MS = 30_000;
const STORE_RETRY_MAX_DELAY_MS = 2_000;

type Packet = Parameters<MqttClient['handleMessage']>[0];

/**
 * The MQTT bridge (DESIGN §6): device values go through the ingest pipeline; status and info go
 * to the device's twin. Malformed topics and payloads are ignored; oversized values are dropped.
 *
 * A value is acknowledged to the broker (PUBACK) only once the pipeline has handled it
 * (acked-once-handled.ts), so a node that dies leaves what it had not stored unacknowledged in its
 * broker session, and the broker sends it again when the node (same NODE_ID) comes back. Each
 * connection handles up to `inFlightPerConnection` values at once: the node's in-flight window is
 * that times its number of connections, so a slow Redis slows the broker's delivery to the node
 * instead of piling up promises, and a backlog beyond that window waits in the broker, where the
 * node's queue probe measures it (queue-probe.ts).
 */
export function startMqttBridge(deps: BridgeDeps) {
  const { clients, logger } = deps;
  const counts = deps.metrics.mqtt;
  const subscribed = new Set<MqttClient>();
  const filters = deviceTopicFilters(deps.topicRoot, SHARE_GROUP);
  let stopped = false;
  let inFlight = 0;
  const beat = sharedBeat(deps.lingerMs);
  const probe = startQueueProbe({ clients, topicRoot: deps.topicRoot, metrics: counts, live: (c) => c.connected && subscribed.has(c) });

  async function projectOf(deviceId: string): Promise<string | null> {
    return deps.redis.hget(keys.device(deviceId), 'projectId');
  }

  async function handle(topic: string, payload: Buffer | string, userProperties?: Record<string, string | string[]>): Promise<void> {
    const parsed = parseDeviceTopic(topic, deps.topicRoot);
    if (!parsed) return;
    const text = typeof payload === 'string' ? payload : payload.toString('utf8');
    if (parsed.kind === 'pin') {
      const result = await deps.ingest({ deviceId: parsed.deviceId, pin: parsed.pin, value: text, origin: 'device' });
      counts.handled();
      if (!result.ok) {
        counts.dropped();
        logger.debug({ deviceId: parsed.deviceId, pin: parsed.pin, code: result.code }, 'mqtt value dropped');
      }
      return;
    }
    if (parsed.kind === 'ack') {
      // Commands (docs/commands.md): the payload is the command id; one of another device changes nothing.
      counts.handled();
      await deps.ingest.acknowledge(parsed.deviceId, text.trim());
      return;
    }
    const at = new Date().toISOString();
    if (parsed.kind === 'status') {
      const status = statusPayload.safeParse(text.trim());
      // `online`: one Redis step shows it ahead of the twin and queues the twin's signal (gateway/status-ahead.ts).
      if (status.success && status.data === 'online') {
        await deps.statusAhead.online(parsed.deviceId, at);
        counts.handled();
        return;
      }
      const projectId = await projectOf(parsed.deviceId);
      counts.handled();
      if (status.success && projectId) {
        await deps.twins.status(parsed.deviceId, projectId, 'offline', at, isLastWill(userProperties) ? 'last will' : undefined);
      }
      return;
    }
    const projectId = await projectOf(parsed.deviceId);
    counts.handled();
    if (!projectId) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return;
    }
    const info = infoPayload.safeParse(json);
    // Any message is activity (DESIGN §6), info included.
    if (info.success) await deps.twins.info(parsed.deviceId, projectId, { ...info.data, at });
  }

  /** True once handled; false when it kept failing (or the node is stopping): then it stays unacknowledged. */
  async function handleUntilDone(client: MqttClient, packet: Packet): Promise<boolean> {
    const giveUpAt = Date.now() + STORE_RETRY_MS;
    let delay = 100;
    for (;;) {
      if (stopped) return false;
      try {
        await handle(packet.topic, packet.payload, packet.properties?.userProperties);
        return true;
      } catch (err) {
        if (!client.connected || Date.now() + delay > giveUpAt) {
          logger.error({ err, topic: packet.topic }, 'device message not handled; left unacknowledged for the broker to send again');
          return false;
        }
        logger.warn({ err: err instanceof Error ? err.message : String(err), topic: packet.topic, retryInMs: delay }, 'device message failed; retrying');
        await new Promise((r) => setTimeout(r, delay));
        delay = Math.min(delay * 2, STORE_RETRY_MAX_DELAY_MS);
      }
    }
  }

  const listeners = clients.map((client) => {
    // A probe is acknowledged at once, in its place among the values' PUBACKs.
    client.handleMessage = ackOnceHandled(
      client,
      deps.inFlightPerConnection,
      async (packet) => {
        if (probe.receive(client, packet.topic, packet.payload)) return true;
        inFlight += 1;
        const received = counts.received();
        await beat.next();
        const done = await handleUntilDone(client, packet);
        inFlight -= 1;
        received();
        return done;
      },
      (err) => logger.warn({ err }, 'PUBACK not written; the broker sends the value again'),
    );
    const subscribe = () => {
      client.subscribeAsync([...filters, probe.topic(client)], { qos: 1 }).then(
        () => subscribed.add(client),
        (err: unknown) => logger.error({ err }, 'mqtt subscribe failed'),
      );
    };
    const lost = () => subscribed.delete(client);
    client.on('connect', subscribe);
    client.on('close', lost);
    if (client.connected) subscribe();
    return { client, subscribe, lost };
  });

  return {
    /** Readiness: rejects until every device-value connection is live and subscribed. */
    async check(): Promise<void> {
      const down = clients.filter((c) => !c.connected).length;
      if (down > 0) throw new Error(`${down} of ${clients.length} broker connections down`);
      if (subscribed.size < clients.length) throw new Error('device topics not subscribed yet');
    },
    /**
     * A graceful stop: leave the share group first, so the broker sends new values to the other
     * nodes instead of queueing them in this node's sessions, then finish what was already
     * received (up to `graceMs`). A crash skips this: its share waits in its sessions until the
     * node is back.
     */
    async stop(graceMs: number): Promise<void> {
      probe.stop();
      for (const { client, subscribe, lost } of listeners) {
        client.off('connect', subscribe);
        client.off('close', lost);
      }
      const deadline = Date.now() + graceMs;
      const leaving = Promise.allSettled(clients.filter((c) => c.connected).map((c) => c.unsubscribeAsync(filters)));
      await withDeadline(leaving, graceMs).catch(() => undefined);
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      stopped = true;
    },
  };
}
