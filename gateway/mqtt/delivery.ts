import { createHash, randomBytes } from 'node:crypto';
import type { IPublishPacket } from 'mqtt';
import type { Delivery } from '../../store/ingest-store';

/**
 * What makes one MQTT delivery of a device value stored once (store/lua/store-point-13.lua, "Each
 * delivery stored once"): an id of its own, made when the bridge takes the packet and kept by every
 * retry of it, and the packet key, a digest of the node's broker session, the packet id, topic and
 * payload, which the broker's redelivery of the packet to that session (the DUP flag set, after the
 * node died or its connection dropped before the PUBACK) has again.
 */
export function deliveryOf(sessionId: string, packet: IPublishPacket): Delivery {
  const key = createHash('sha1')
    .update(`${sessionId}\n${packet.messageId ?? ''}\n${packet.topic}\n`)
    .update(packet.payload);
  return { id: randomBytes(6).toString('hex'), packetKey: key.digest('hex').slice(0, 12), redelivered: packet.dup };
}
