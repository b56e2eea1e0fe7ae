import type { IConnackPacket } from 'mqtt';
import { z } from 'zod';
import { withDeadline } from '../../common/deadline';
import { INFO_FIELD_MAX_LENGTH } from '../../common/device-info';
import type { Logger } from '../../common/logger';
import type { Metrics } from '../../common/metrics';
import type { MqttClient } from '../../common/mqtt';
import { deviceTopicFilters, isLastWill, parseDeviceTopic } from '../../common/mqtt-topics';
import type { Redis } from '../../common/redis';
import type { Delivery } from '../../store/ingest-store';
import { createJobStore } from '../../store/jobs';
import { writeTwinMessage } from '../../store/twin-messages';
import type { Ingest } from '../ingest/ingest';
import type { StatusAhead } from '../temporal/status-ahead';
import { ackOnceHandled } from './acked-once-handled';
import { deliveryOf } from './delivery';
import type { DeviceRates } from './device-rates';
import { payloadFits } from './message-limits';
import { reportOtaStatus } from './ota-status';
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
  /** Each device's value rate by its owner's plan (device-rates.ts). */
  rates: DeviceRates;
  /** The outbox family a device's status and info messages go to its twin through (keys.onlineOutbox). */
  twinOutbox: string;
  /** Shows a device online ahead of its twin (reconnect storms, gateway/temporal/status-ahead.ts). */
  statusAhead: StatusAhead;
  logger: Logger;
  metrics: Metrics;
  topicRoot: string;
}

/** Shared-subscription group: every gateway node joins it, so each device message is handled once. */
const SHARE_GROUP = 'dds-gateway';
/** A message whose handling fails (a dependency down) is retried, the waits doubling up to this. */
const RETRY_MAX_DELAY_MS = 2_000;

type Packet = Parameters<MqttClient['handleMessage']>[0];

/**
 * The MQTT bridge (DESIGN §6): device values go through the ingest pipeline; status and info go
 * to the device's twin through the outbox (written here, carried out by the relay, so a Temporal
 * outage delays them and loses none). Malformed topics and payloads are ignored; oversized values
 * are dropped.
 *
 * A value is acknowledged to the broker (PUBACK) only once the pipeline has handled it
 * (acked-once-handled.ts), so a node that dies leaves what it had not stored unacknowledged in its
 * broker session, and the broker sends it again when the node (same NODE_ID) comes back. A message
 * whose handling fails (Redis down) is retried with backoff for as long as its connection is up
 * and the node runs, never given up: the broker holds the ones behind it, and once the dependency
 * is back they all go through. Meanwhile `/readyz` says `ingest: stalled`. Each
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
  const jobs = createJobStore(deps.redis);
  let stopped = false;
  let inFlight = 0;
  const beat = sharedBeat(deps.lingerMs);
  const probe = startQueueProbe({ clients, topicRoot: deps.topicRoot, metrics: counts, live: (c) => c.connected && subscribed.has(c) });

  /**
   * Retained messages are kept by the broker only where DESIGN §6 uses them (a device's `status`):
   * one on any other device topic is cleared (an empty retained message), so a device cannot make
   * the broker keep values without limit.
   */
  function clearRetained(client: MqttClient, topic: string): void {
    client
      .publishAsync(topic, '', { qos: 0, retain: true })
      .catch((err: unknown) => logger.debug({ err, topic }, 'retained message not cleared'));
  }

  async function handle(client: MqttClient, packet: Packet, delivery: Delivery): Promise<void> {
    const { topic, payload } = packet;
    const parsed = parseDeviceTopic(topic, deps.topicRoot);
    if (!parsed) return;
    if (packet.retain && parsed.kind !== 'status') {
      // An empty one is a clear (ours, or the device's): no message.
      if (payload.length === 0) return;
      clearRetained(client, topic);
    }
    if (!payloadFits(parsed, payload)) {
      // Too large for its kind: dropped before it is decoded (DESIGN §11).
      counts.handled();
      counts.dropped();
      return;
    }
    const text = typeof payload === 'string' ? payload : payload.toString('utf8');
    if (parsed.kind === 'pin') {
      const devicePerSecond = await deps.rates.perSecond(parsed.deviceId);
      const result = await deps.ingest({
        deviceId: parsed.deviceId,
        pin: parsed.pin,
        value: text,
        origin: 'device',
        devicePerSecond,
        delivery,
      });
      counts.handled();
      if (result.ok && result.duplicate) counts.duplicate();
      if (!result.ok) {
        counts.dropped();
        if (result.code === 'RATE_LIMIT_EXCEEDED') counts.overRate();
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
    if (parsed.kind === 'ota-status') {
      counts.handled();
      await reportOtaStatus(jobs, parsed.deviceId, text);
      return;
    }
    const at = new Date().toISOString();
    const { deviceId } = parsed;
    if (parsed.kind === 'status') {
      const status = statusPayload.safeParse(text.trim());
      // `online`: one Redis step shows it ahead of the twin and queues the twin's signal (gateway/temporal/status-ahead.ts).
      if (status.success && status.data === 'online') await deps.statusAhead.online(deviceId, at);
      else if (status.success) {
        const reason = isLastWill(packet.properties?.userProperties) ? { reason: 'last will' as const } : {};
        await writeTwinMessage(deps.redis, deps.twinOutbox, { kind: 'status', payload: { deviceId, status: 'offline', at, ...reason } });
      }
      counts.handled();
      return;
    }
    counts.handled();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return;
    }
    const info = infoPayload.safeParse(json);
    // Any message is activity (DESIGN §6), info included.
    if (info.success) await writeTwinMessage(deps.redis, deps.twinOutbox, { kind: 'info', payload: { deviceId, info: info.data, at } });
  }

  /** Messages failing now (each in its retry loop): while there are any, ingest is stalled. */
  let failing = 0;

  /**
   * True once handled; false when its connection went down or the node is stopping: then it stays
   * unacknowledged, and the broker sends it again (on this session's next connection, or to the
   * node that takes the session). A failure is retried, the waits doubling up to RETRY_MAX_DELAY_MS.
   */
  async function handleUntilDone(client: MqttClient, packet: Packet): Promise<boolean> {
    let delay = 100;
    let failed = false;
    // One delivery however many tries: a try whose reply was lost may have stored the value.
    const delivery = deliveryOf(client.options.clientId ?? '', packet);
    try {
      for (;;) {
        if (stopped) return false;
        try {
          await handle(client, packet, delivery);
          return true;
        } catch (err) {
          if (!failed) {
            failed = true;
            failing += 1;
          }
          if (!client.connected) {
            logger.warn({ err, topic: packet.topic }, 'device message not handled and its connection is down; the broker sends it again');
            return false;
          }
          logger.warn(
            { err: err instanceof Error ? err.message : String(err), topic: packet.topic, retryInMs: delay },
            'device message failed; retrying',
          );
          await new Promise((r) => setTimeout(r, delay));
          delay = Math.min(delay * 2, RETRY_MAX_DELAY_MS);
          counts.retried();
        }
      }
    } finally {
      if (failed) failing -= 1;
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
    const subscribe = (connack?: IConnackPacket) => {
      // A session the broker kept: Mosquitto 2.0 restores a persisted session without its shared
      // subscriptions (a broker restart), and a SUBSCRIBE alone is then a no-op on them, so the node
      // would get no device value until its session ended. An UNSUBSCRIBE first, sent in the same
      // write, makes the SUBSCRIBE take; what the session had queued is delivered all the same.
      const renewed = connack?.sessionPresent ? client.unsubscribeAsync(filters) : Promise.resolve();
      // Retain As Published: a device's retained message comes with its flag, to be cleared (clearRetained).
      const subscribing = client.subscribeAsync([...filters, probe.topic(client)], { qos: 1, rap: true });
      Promise.all([renewed, subscribing]).then(
        () => subscribed.add(client),
        (err: unknown) => logger.error({ err }, 'mqtt subscribe failed'),
      );
    };
    const lost = () => subscribed.delete(client);
    client.on('connect', (connack) => subscribe(connack));
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
    /** Readiness of the pipeline: rejects while device messages cannot be stored (each one retried meanwhile). */
    async ingestCheck(): Promise<void> {
      if (failing > 0) throw new Error(`stalled: ${failing} device messages failing, retried until stored`);
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
