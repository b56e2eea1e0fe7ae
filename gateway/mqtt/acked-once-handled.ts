import { writeToStream } from 'mqtt-packet';
import type { MqttClient } from '../../common/mqtt';

type Packet = Parameters<MqttClient['handleMessage']>[0];
type Done = Parameters<MqttClient['handleMessage']>[1];

/**
 * Passed to MQTT.js's handleMessage callback for a QoS 1 message taken here: as an error it makes
 * MQTT.js send no PUBACK and move on to the next message (its handler does exactly that with any
 * error); this module writes the PUBACK itself once the message is handled.
 */
const ACKED_HERE = new Error('acknowledged once handled');

/**
 * Lets one connection take up to `limit` messages at once while every QoS 1 message is still
 * acknowledged (PUBACK) only once `handle` resolved true for it.
 *
 * MQTT.js takes one message at a time per connection: its handleMessage callback sends the PUBACK
 * and only then lets the next message in, so a node's in-flight window was its number of
 * connections, each value a store round trip of its own. Here the callback is called at once (with
 * ACKED_HERE for a QoS 1 message) while fewer than `limit` are being handled, so the next message
 * is handled beside it; past `limit` the callback waits for a place, and the connection takes
 * nothing more meanwhile (the broker keeps the rest). The PUBACKs leave in the order the messages
 * came (MQTT 5 §4.6), written with MQTT.js's own packet writer onto the connection's stream, so the
 * ones of one event-loop turn go out in one socket write; a value handled before the one ahead of
 * it waits for it to be acknowledged, but frees its place at once.
 *
 * A message whose handling failed (`handle` resolved false) is not acknowledged: the broker sends
 * it again when the session reconnects. Nor is a PUBACK meant for an earlier connection of the
 * session (it reconnected meanwhile): the broker resends that message on the new connection,
 * possibly under a packet id it has given to another message since.
 *
 * `limit` bounds the node's work whatever the broker sends; the broker's window per connection
 * bounds how many wait unacknowledged behind a slow one: the connection's MQTT 5 Receive Maximum,
 * which the gateway sets to the same number (gateway/compose.ts), or else the broker's default
 * (Mosquitto `max_inflight_messages`, 20).
 */
export function ackOnceHandled(
  client: MqttClient,
  limit: number,
  handle: (packet: Packet) => Promise<boolean>,
  onWriteError: (err: unknown) => void,
): (packet: Packet, callback: Done) => void {
  let held = 0;
  /** MQTT.js's callbacks waiting for a place. */
  const waiting: (() => void)[] = [];
  /** The last PUBACK in order: each waits for the one before it. */
  let acks: Promise<void> = Promise.resolve();

  const release = (): void => {
    held -= 1;
    waiting.shift()?.();
  };
  const admit = (next: () => void): void => {
    if (held < limit) next();
    else waiting.push(next);
  };

  return (packet, callback) => {
    held += 1;
    const handled = handle(packet).catch(() => false);
    void handled.then(release);
    const messageId = packet.messageId;
    if (packet.qos !== 1 || messageId === undefined) {
      // QoS 0: nothing to acknowledge (the service subscribes at QoS 1, so nothing arrives at QoS 2).
      admit(() => callback());
      return;
    }
    const stream = client.stream;
    acks = acks.then(async () => {
      if (!(await handled) || !client.connected || client.stream !== stream) return;
      try {
        writeToStream({ cmd: 'puback', messageId }, stream, client.options);
      } catch (err) {
        // Left unacknowledged: the broker sends it again. The PUBACKs after it still go.
        onWriteError(err);
      }
    });
    admit(() => callback(ACKED_HERE));
  };
}
