import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import type { Config } from './config';

/** The service's own broker connection (MQTT 5, service credentials, reconnects with backoff). */
export function createMqttClient(config: Pick<Config, 'MQTT_URL' | 'MQTT_USERNAME' | 'MQTT_PASSWORD'>, role: string): MqttClient {
  return mqtt.connect(config.MQTT_URL, {
    protocolVersion: 5,
    clientId: `dds-${role}-${randomUUID().slice(0, 8)}`,
    username: config.MQTT_USERNAME,
    password: config.MQTT_PASSWORD,
    reconnectPeriod: 1000,
    connectTimeout: 5000,
    clean: true,
  });
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
