import { commandTopic } from '../common/mqtt-topics';
import { flushKeptCommands } from '../store/flush-kept-commands';
import type { ActivityDeps } from './deps';
import type { FlushCommandsResult } from '../common/twin-activities';

export function createCommandActivities({ redis, mqtt, topicRoot, logger }: ActivityDeps) {
  return {
    /**
     * The twin's flush of the commands kept for its device (store/flush-kept-commands.ts): when the
     * device comes online, and at a check-back that finds commands kept.
     */
    async flushPendingCommands({ deviceId }: { deviceId: string }): Promise<FlushCommandsResult> {
      const { delivered, left } = await flushKeptCommands(redis, deviceId, {
        connected: () => mqtt.connected,
        publish: async (pin, value) => {
          await mqtt.publishAsync(commandTopic(topicRoot, deviceId, pin), value, { qos: 1 });
          return 'published';
        },
        onFailure: (err, pin) => logger.warn({ err, deviceId, pin }, 'kept command not published; stays kept'),
      });
      return { delivered, left };
    },
  };
}
