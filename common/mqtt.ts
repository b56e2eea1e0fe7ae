import { randomUUID } from 'node:crypto';
import { Socket } from 'node:net';
import mqtt, { type MqttClient } from 'mqtt';
import type { Config } from './config';
import { corkPerLoopIteration } from './cork';

/**
 * Each connection's packets of one event-loop iteration (PUBACKs, publishes) leave in one socket
 * write (common/cork.ts), at once: with that coalescing done here, Nagle's algorithm would only
 * hold a write back until the broker's TCP acknowledgement of the one before.
 */
function writesPerIteration(client: MqttClient): MqttClient {
  client.on('connect', () => {
    if (client.stream instanceof Socket) client.stream.setNoDelay(true);
    corkPerLoopIteration(client.stream);
  });
  return client;
}

/** The largest packet a service connection takes, when its config does not say (MQTT_MAX_PACKET_BYTES's default). */
const DEFAULT_MAX_PACKET_BYTES = 65_536;

type PacketLimit = Partial<Pick<Config, 'MQTT_MAX_PACKET_BYTES'>>;

/**
 * MQTT 5 Maximum Packet Size: the broker sends the connection no larger packet (it drops such a
 * message for this client), so a device's oversized publish never reaches the node's memory.
 */
const maximumPacketSize = (config: PacketLimit): number => config.MQTT_MAX_PACKET_BYTES ?? DEFAULT_MAX_PACKET_BYTES;

/** The service's own broker connection (MQTT 5, service credentials, reconnects with backoff). */
export function createMqttClient(
  config: Pick<Config, 'MQTT_URL' | 'MQTT_USERNAME' | 'MQTT_PASSWORD'> & PacketLimit,
  role: string,
): MqttClient {
  const client = mqtt.connect(config.MQTT_URL, {
    protocolVersion: 5,
    clientId: `dds-${role}-${randomUUID().slice(0, 8)}`,
    username: config.MQTT_USERNAME,
    password: config.MQTT_PASSWORD,
    reconnectPeriod: 1000,
    connectTimeout: 5000,
    clean: true,
    properties: { maximumPacketSize: maximumPacketSize(config) },
  });
  return writesPerIteration(client);
}

/**
 * A connection with a persistent session: a fixed client id, `clean: false` and an MQTT 5 session
 * expiry, so what the broker sent but this client did not acknowledge is sent again when the same
 * id reconnects (after a crash too), and what arrives meanwhile is queued for it. `receiveMaximum`
 * is how many QoS 1 messages the broker may send it unacknowledged (MQTT 5 Receive Maximum; the
 * broker's own default, Mosquitto's max_inflight_messages of 20, when not given).
 */
export function createMqttSessionClient(
  config: Pick<Config, 'MQTT_URL' | 'MQTT_USERNAME' | 'MQTT_PASSWORD' | 'MQTT_SESSION_EXPIRY_S'> & PacketLimit,
  clientId: string,
  receiveMaximum?: number,
): MqttClient {
  const client = mqtt.connect(config.MQTT_URL, {
    protocolVersion: 5,
    clientId,
    username: config.MQTT_USERNAME,
    password: config.MQTT_PASSWORD,
    reconnectPeriod: 1000,
    connectTimeout: 5000,
    clean: false,
    properties: {
      sessionExpiryInterval: config.MQTT_SESSION_EXPIRY_S,
      maximumPacketSize: maximumPacketSize(config),
      ...(receiveMaximum ? { receiveMaximum } : {}),
    },
  });
  return writesPerIteration(client);
}

/** Resolves once the client is connected (or rejects after `ms`). */
export function mqttConnected(client: MqttClient, ms = 10000): Promise<void> {
  if (client.connected) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('connect', onConnect);
      reject(new Error(`MQTT broker not reachable within ${ms} ms`));
    }, ms);
    const onConnect = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once('connect', onConnect);
  });
}

export type { MqttClient };
