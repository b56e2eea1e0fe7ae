import { randomUUID } from 'node:crypto';
import type { Metrics } from '../../common/metrics';
import type { MqttClient } from '../../common/mqtt';

/** One probe a second per connection. */
const PROBE_INTERVAL_MS = 1000;

interface Sent {
  seq: number;
  sentAt: number;
  /** The broker acknowledged it (PUBACK): from then on it is in the session's queue. */
  queued: boolean;
}

interface Session {
  topic: string;
  sent: Sent[];
  /** How long the last probe back took, ms. */
  lastMs: number;
}

/**
 * How far behind the broker's queues for this node are (docs/operations.md, "Broker"). MQTT 5
 * carries no publish time, and the backlog of a node that cannot keep up sits in the broker, not
 * in the node. So every second the node publishes a probe (QoS 1) to a topic that only one of its
 * own sessions subscribes to; the broker queues it behind the device values it holds for that
 * session, in order. The age of the oldest probe not back yet is how long a device value waits
 * in the broker for this node: `dds_mqtt_queue_lag_seconds`, the largest over the node's sessions.
 *
 * A session's queue is first in, first out, so a probe the broker acknowledged that is passed by a
 * later one was dropped from the queue: `dds_mqtt_queue_drops_total`, the broker dropping device
 * values for this node (max_queued_messages). Probes of an earlier run of the node (same session
 * names) are acknowledged and ignored.
 */
export function startQueueProbe(deps: {
  clients: readonly MqttClient[];
  topicRoot: string;
  metrics: Metrics['mqtt'];
  /** Whether a connection is subscribed and taking messages now. */
  live: (client: MqttClient) => boolean;
}) {
  const run = randomUUID().slice(0, 8);
  let seq = 0;
  const sessions = new Map<MqttClient, Session>(
    deps.clients.map((client) => [client, { topic: `${deps.topicRoot}/_lag/${client.options.clientId}`, sent: [], lastMs: 0 }]),
  );

  const send = (): void => {
    for (const [client, session] of sessions) {
      if (!deps.live(client)) continue;
      const probe: Sent = { seq: ++seq, sentAt: Date.now(), queued: false };
      session.sent.push(probe);
      client.publish(session.topic, `${run}:${probe.seq}`, { qos: 1 }, (err) => {
        if (!err) probe.queued = true;
      });
    }
  };
  const timer = setInterval(send, PROBE_INTERVAL_MS);
  timer.unref();

  deps.metrics.queueLag(() => {
    const now = Date.now();
    let lagMs = 0;
    for (const session of sessions.values()) {
      const oldest = session.sent[0];
      lagMs = Math.max(lagMs, oldest ? now - oldest.sentAt : session.lastMs);
    }
    return lagMs / 1000;
  });

  return {
    /** The probe topic of a connection, subscribed along with the device topics. */
    topic: (client: MqttClient): string => (sessions.get(client) as Session).topic,
    /** True when the message is this connection's probe (handled here: acknowledge it and nothing else). */
    receive(client: MqttClient, topic: string, payload: Buffer | string): boolean {
      const session = sessions.get(client);
      if (!session || topic !== session.topic) return false;
      const [probeRun, probeSeq] = payload.toString().split(':');
      const at = probeRun === run ? session.sent.findIndex((p) => p.seq === Number(probeSeq)) : -1;
      if (at < 0) return true;
      const passed = session.sent.splice(0, at + 1);
      const probe = passed.pop() as Sent;
      const dropped = passed.filter((p) => p.queued).length;
      if (dropped > 0) deps.metrics.queueDrops(dropped);
      session.lastMs = Date.now() - probe.sentAt;
      return true;
    },
    stop(): void {
      clearInterval(timer);
    },
  };
}
