import type { MqttClient } from './mqtt';

/** Per client: ids of the QoS 1 publishes the broker acknowledged with "No matching subscribers" (MQTT 5 reason code 16). */
const unheard = new WeakMap<MqttClient, Set<number>>();

const NO_MATCHING_SUBSCRIBERS = 16;

function unheardOf(client: MqttClient): Set<number> {
  let ids = unheard.get(client);
  if (!ids) {
    const created = new Set<number>();
    ids = created;
    unheard.set(client, created);
    // MQTT.js reports reason code 16 as a success and hands the publish callback its own packet,
    // not the PUBACK: the PUBACK is seen here first (packetreceive comes before the ack handling).
    client.on('packetreceive', (packet) => {
      if (packet.cmd === 'puback' && packet.reasonCode === NO_MATCHING_SUBSCRIBERS && packet.messageId !== undefined)
        created.add(packet.messageId);
    });
  }
  return ids;
}

/**
 * Publishes at QoS 1 (MQTT 5 client) and tells whether anyone was subscribed to receive it: the
 * broker takes a publish nobody subscribes to and drops it, saying so in its PUBACK.
 */
export async function publishToListener(client: MqttClient, topic: string, value: string): Promise<'published' | 'no-listener'> {
  const ids = unheardOf(client);
  const packet = await client.publishAsync(topic, value, { qos: 1 });
  const messageId = packet?.messageId;
  if (messageId === undefined || !ids.delete(messageId)) return 'published';
  return 'no-listener';
}
