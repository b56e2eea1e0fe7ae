import { randomUUID } from 'node:crypto';
import { connectAsync, type MqttClient } from 'mqtt';

export interface FleetOptions {
  url: string;
  username: string;
  password: string;
  count: number;
  /** Connections opened at once. */
  batch?: number;
}

/** `count` simulated devices, one MQTT connection each (distinct client ids), opened in batches. */
export async function connectFleet(options: FleetOptions): Promise<MqttClient[]> {
  const run = randomUUID().slice(0, 8);
  const batch = options.batch ?? 50;
  const clients: MqttClient[] = [];
  try {
    for (let start = 0; start < options.count; start += batch) {
      const size = Math.min(batch, options.count - start);
      const opened = await Promise.all(
        Array.from({ length: size }, (_, i) =>
          connectAsync(options.url, {
            clientId: `bench-${run}-${start + i}`,
            username: options.username,
            password: options.password,
            reconnectPeriod: 0,
            connectTimeout: 10_000,
          }),
        ),
      );
      clients.push(...opened);
    }
  } catch (err) {
    await closeFleet(clients);
    throw err;
  }
  return clients;
}

export async function closeFleet(clients: MqttClient[]): Promise<void> {
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
}
