import { createCommandStore } from './commands';
import type { Redis } from '../common/redis';
import { createPendingCommandStore, type PendingCommand } from './pending-commands';

/** How a publish of a command went: taken by the broker, or taken with nobody subscribed to receive it. */
export type PublishOutcome = 'published' | 'no-listener';

export interface FlushKeptResult {
  delivered: number;
  /** Commands still kept (the broker unreachable, or nobody listening yet). */
  left: number;
  /** When the oldest command still kept was written (epoch ms), or null when none is left. */
  oldestLeftMs: number | null;
}

export interface FlushKeptOptions {
  /** Whether the service's broker connection is up now: nothing is sent while it is down (the client would queue it). */
  connected: () => boolean;
  publish: (pin: string, value: string) => Promise<PublishOutcome>;
  onFailure: (err: unknown, pin: string) => void;
}

/**
 * Publishes the commands kept for a device (QoS 1, oldest first) and removes each once the
 * broker acknowledged it, unless a newer value replaced it meanwhile (docs/commands.md). The one
 * implementation of a flush: the twin's (when the device comes online, and at its check-backs)
 * and the gateway's resender (after a publish failed to a device that stayed online) both run it.
 * - A command some newer value has superseded (written since, by an app or the device) is dropped
 *   unsent; one past its TTL is dropped unsent (expired).
 * - When an app's newer write landed while a command was being sent (so its own direct publish may
 *   reach the device first), that newer value is sent again after it: the device ends with the newest.
 * - Stops at the first failure, or the first publish nobody was subscribed to receive (`no-listener`:
 *   the command stays kept for a later try); what is left stays kept.
 */
export async function flushKeptCommands(redis: Redis, deviceId: string, options: FlushKeptOptions): Promise<FlushKeptResult> {
  const pending = createPendingCommandStore(redis);
  const records = createCommandStore(redis);
  /** Moves a kept command's record; commands kept by older versions have none. */
  const receipt = async (command: PendingCommand, state: 'sent' | 'expired' | 'superseded'): Promise<void> => {
    if (command.commandId) await records.move(deviceId, command.commandId, state);
  };
  const commands = await pending.list(deviceId);
  let done = 0;
  let delivered = 0;
  for (const command of commands) {
    if (!options.connected()) break;
    const writtenAt = command.at ?? command.queuedAt;
    if (command.expiresAt && Date.parse(command.expiresAt) <= Date.now()) {
      await pending.delivered(deviceId, command);
      await receipt(command, 'expired');
      done += 1;
      continue;
    }
    const before = await pending.latest(deviceId, command.pin);
    if (before && before.updatedAt > writtenAt) {
      await pending.delivered(deviceId, command);
      await receipt(command, 'superseded');
      done += 1;
      continue;
    }
    try {
      if ((await options.publish(command.pin, command.value)) === 'no-listener') break;
      await pending.delivered(deviceId, command);
      await receipt(command, 'sent');
      done += 1;
      delivered += 1;
      const after = await pending.latest(deviceId, command.pin);
      if (after && after.origin === 'app' && after.updatedAt > writtenAt) await options.publish(command.pin, after.value);
    } catch (err) {
      options.onFailure(err, command.pin);
      break;
    }
  }
  const left = commands.slice(done);
  const oldest = left.map((c) => Date.parse(c.queuedAt)).filter(Number.isFinite);
  return { delivered, left: left.length, oldestLeftMs: oldest.length > 0 ? Math.min(...oldest) : null };
}
