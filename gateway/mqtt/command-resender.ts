import type { Logger } from '../../common/logger';
import type { MqttClient } from '../../common/mqtt';
import { publishToListener } from '../../common/mqtt-listener-publish';
import { commandTopic } from '../../common/mqtt-topics';
import type { Redis } from '../../common/redis';
import { flushKeptCommands } from '../../store/flush-kept-commands';
import { createSchedule } from '../../store/schedule';

export interface CommandResenderOptions {
  redis: Redis;
  /** The node's publishing connection (MQTT 5: its PUBACKs say when nobody was subscribed). */
  mqtt: MqttClient;
  /** keys.unsentCommands(taskQueue). */
  key: string;
  topicRoot: string;
  logger: Logger;
  /** How often the schedule is looked at; default 1 s. */
  everyMs?: number;
}

/** Devices claimed per look, and how long a claim holds one. */
const CLAIM_MAX = 50;
const LEASE_MS = 10_000;
/** The wait before the next try grows with the age of the oldest command kept (a tenth of it), between these. */
const MIN_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
/** Past this age the resender leaves a device's commands to its twin's check-backs. */
const GIVE_UP_AFTER_MS = 3_600_000;

/**
 * Sends, as soon as it can, what an app wrote to an online device while the broker could not take
 * it (docs/commands.md "Kept after a failed publish"). Ingest keeps such a command for the device
 * (newest per pin) and schedules the device here; every node looks at the schedule each second
 * while its broker connection is up and flushes the due devices' kept commands
 * (store/flush-kept-commands.ts), the same flush the twin runs, whether or not the twin ever saw
 * the device offline. A publish the broker reports nobody subscribed to (the device has not
 * resubscribed since the broker came back) leaves the command kept and the device scheduled again,
 * sooner the younger its oldest command; so each one reaches the device within about a second of
 * its resubscription. Each command's receipt moves on as the flush sends it.
 */
export function startCommandResender(options: CommandResenderOptions): { stop(): Promise<void> } {
  const { redis, mqtt, logger } = options;
  const schedule = createSchedule(redis, options.key);

  async function resend(deviceId: string, score: number): Promise<void> {
    const result = await flushKeptCommands(redis, deviceId, {
      connected: () => mqtt.connected,
      publish: (pin, value) => publishToListener(mqtt, commandTopic(options.topicRoot, deviceId, pin), value),
      onFailure: (err, pin) => logger.warn({ err, deviceId, pin }, 'kept command not sent; tried again later'),
    });
    if (result.delivered > 0) logger.info({ deviceId, delivered: result.delivered, left: result.left }, 'kept commands sent');
    const now = Date.now();
    if (result.oldestLeftMs === null || now - result.oldestLeftMs > GIVE_UP_AFTER_MS) {
      await schedule.remove(deviceId, score);
      return;
    }
    const wait = Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, (now - result.oldestLeftMs) / 10));
    await schedule.reschedule(deviceId, now + wait);
  }

  async function look(): Promise<void> {
    if (!mqtt.connected) return;
    const { members, score } = await schedule.claimDue(Date.now(), LEASE_MS, CLAIM_MAX);
    await Promise.all(
      members.map((deviceId) =>
        resend(deviceId, score).catch((err: unknown) =>
          logger.warn({ err, deviceId }, 'kept commands not looked at; the claim runs out and another try comes'),
        ),
      ),
    );
  }

  let stopped = false;
  let wake: () => void = () => undefined;
  const loop = (async () => {
    while (!stopped) {
      await look().catch((err: unknown) =>
        logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'unsent commands not looked at'),
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.everyMs ?? 1_000);
        wake = () => (clearTimeout(timer), resolve());
      });
    }
  })();
  return {
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
