import { commandTopic } from '../common/mqtt-topics';
import { createCommandStore } from '../store/commands';
import { createPendingCommandStore, type PendingCommand } from '../store/pending-commands';
import type { ActivityDeps } from './deps';
import type { FlushCommandsResult } from './types';

export function createCommandActivities({ redis, mqtt, topicRoot, logger }: ActivityDeps) {
  const pending = createPendingCommandStore(redis);
  const records = createCommandStore(redis);
  /** Moves a kept command's record (docs/commands.md); commands kept by older versions have none. */
  const receipt = async (deviceId: string, command: PendingCommand, state: 'sent' | 'expired' | 'superseded'): Promise<void> => {
    if (command.commandId) await records.move(deviceId, command.commandId, state);
  };
  return {
    /**
     * Publishes the commands kept for a device (QoS 1, oldest first) and removes each once the
     * broker acknowledged it, unless a newer value replaced it meanwhile. A command some newer
     * value has superseded (written since, by an app or the device) is dropped unsent; and when an
     * app's newer write landed while a command was being sent (so its own direct publish may reach
     * the device first), that newer value is sent again after it: the device ends with the newest.
     * Stops at the first failure; what is left stays kept for the next try. Nothing is sent while
     * the service's broker connection is down (the client would queue it behind the twin's back).
     * A command past its TTL is dropped unsent (expired).
     */
    async flushPendingCommands({ deviceId }: { deviceId: string }): Promise<FlushCommandsResult> {
      const commands = await pending.list(deviceId);
      let delivered = 0;
      let dropped = 0;
      const publish = (pin: string, value: string) => mqtt.publishAsync(commandTopic(topicRoot, deviceId, pin), value, { qos: 1 });
      for (const command of commands) {
        if (!mqtt.connected) break;
        const writtenAt = command.at ?? command.queuedAt;
        if (command.expiresAt && Date.parse(command.expiresAt) <= Date.now()) {
          await pending.delivered(deviceId, command);
          await receipt(deviceId, command, 'expired');
          dropped += 1;
          continue;
        }
        const before = await pending.latest(deviceId, command.pin);
        if (before && before.updatedAt > writtenAt) {
          await pending.delivered(deviceId, command);
          await receipt(deviceId, command, 'superseded');
          dropped += 1;
          continue;
        }
        try {
          await publish(command.pin, command.value);
          await pending.delivered(deviceId, command);
          await receipt(deviceId, command, 'sent');
          delivered += 1;
          const after = await pending.latest(deviceId, command.pin);
          if (after && after.origin === 'app' && after.updatedAt > writtenAt) await publish(command.pin, after.value);
        } catch (err) {
          logger.warn({ err, deviceId, pin: command.pin }, 'kept command not published; stays kept');
          break;
        }
      }
      return { delivered, left: commands.length - delivered - dropped };
    },
  };
}
