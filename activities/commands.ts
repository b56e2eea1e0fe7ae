import { commandTopic } from '../common/mqtt-topics';
import { createPendingCommandStore } from '../store/pending-commands';
import type { ActivityDeps } from './deps';
import type { FlushCommandsResult } from './types';

export function createCommandActivities({ redis, mqtt, topicRoot, logger }: ActivityDeps) {
  const pending = createPendingCommandStore(redis);
  return {
    /**
     * Publishes the commands kept for a device (QoS 1, oldest first) and removes each once the
     * broker acknowledged it, unless a newer value replaced it meanwhile. Stops at the first
     * failure; what is left stays kept for the next try. Nothing is sent while the service's
     * broker connection is down (the client would queue it behind the twin's back).
     */
    async flushPendingCommands({ deviceId }: { deviceId: string }): Promise<FlushCommandsResult> {
      const commands = await pending.list(deviceId);
      let delivered = 0;
      for (const command of commands) {
        if (!mqtt.connected) break;
        try {
          await mqtt.publishAsync(commandTopic(topicRoot, deviceId, command.pin), command.value, { qos: 1 });
        } catch (err) {
          logger.warn({ err, deviceId, pin: command.pin }, 'kept command not published; stays kept');
          break;
        }
        await pending.delivered(deviceId, command);
        delivered += 1;
      }
      return { delivered, left: commands.length - delivered };
    },
  };
}
