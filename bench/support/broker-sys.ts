import { setTimeout as delay } from 'node:timers/promises';
import { connectAsync } from 'mqtt';

/**
 * Mosquitto's total of messages dropped for inflight/queue limits (mosquitto(8), $SYS tree):
 * published when it changes, at most every sys_interval (default 10 s), and on the first update
 * after the broker starts; retained for 60 s only, so follow it from the broker's start.
 */
const DROPPED_TOPIC = '$SYS/broker/publish/messages/dropped';
const SYS_INTERVAL_MS = 10_000;

export interface BrokerDrops {
  /** The broker's count one full sys_interval from now, so it covers what was dropped before the call (NaN when none was published yet). */
  settled(): Promise<number>;
  close(): Promise<void>;
}

/** Follows the broker's own dropped-messages counter, as a cross-check of what the bench counts. Start it with the broker. */
export async function watchBrokerDrops(url: string, username: string, password: string): Promise<BrokerDrops> {
  const client = await connectAsync(url, { username, password, reconnectPeriod: 0, connectTimeout: 10_000 });
  let latest = NaN;
  client.on('message', (topic, payload) => {
    if (topic === DROPPED_TOPIC) latest = Number(payload.toString());
  });
  await client.subscribeAsync(DROPPED_TOPIC, { qos: 0 });
  return {
    async settled() {
      await delay(SYS_INTERVAL_MS + 1000);
      return latest;
    },
    close: () => client.endAsync(),
  };
}
