import type { MqttClient } from 'mqtt';

export interface PublishOutcome {
  attempted: number;
  acked: number;
  failed: number;
  /** Publishes with no answer from the broker by the deadline. */
  unanswered: number;
  seconds: number;
}

const TICK_MS = 5;
const ACK_GRACE_MS = 10_000;

/**
 * Publishes `ratePerS` messages a second in total for `seconds`, round-robin over the clients
 * (client i on topics[i]), so each device sends ratePerS / clients.length a second. The payload
 * is the send time in epoch ms. Bounded: stops sending after `seconds`, waits at most 10 s more
 * for the broker's acknowledgements.
 */
export function publishPaced(
  clients: readonly MqttClient[],
  topics: readonly string[],
  ratePerS: number,
  seconds: number,
  qos: 0 | 1 = 1,
): Promise<PublishOutcome> {
  const total = Math.round(ratePerS * seconds);
  const outcome: PublishOutcome = { attempted: 0, acked: 0, failed: 0, unanswered: 0, seconds: 0 };
  const startedAt = Date.now();
  return new Promise((resolve) => {
    let graceTimer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(graceTimer);
      outcome.unanswered = outcome.attempted - outcome.acked - outcome.failed;
      resolve(outcome);
    };
    const answered = (err?: Error): void => {
      if (err) outcome.failed += 1;
      else outcome.acked += 1;
      if (outcome.attempted === total && outcome.acked + outcome.failed === total) finish();
    };
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((Date.now() - startedAt) / 1000) * ratePerS));
      while (outcome.attempted < due) {
        const i = outcome.attempted % clients.length;
        outcome.attempted += 1;
        (clients[i] as MqttClient).publish(topics[i] as string, String(Date.now()), { qos }, answered);
      }
      if (outcome.attempted === total) {
        clearInterval(tick);
        outcome.seconds = (Date.now() - startedAt) / 1000;
        graceTimer = setTimeout(finish, ACK_GRACE_MS);
        if (outcome.acked + outcome.failed === total) finish();
      }
    }, TICK_MS);
  });
}
