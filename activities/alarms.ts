import { createAlarmStore } from '../store/alarms';
import type { ActivityDeps } from './deps';
import type { ClearAlarmRequest, RaiseAlarmRequest } from '../common/twin-activities';

/**
 * The alarm record writes the twin decides (docs/alarms.md); each change publishes its `alarm`
 * event to the rooms of the project and the device in the same step (store/alarms.ts).
 */
export function createAlarmActivities({ redis, logger }: ActivityDeps) {
  const alarms = createAlarmStore(redis);

  return {
    /** Raises or updates the rule's alarm; a repeat of the same edge changes nothing (and publishes nothing). */
    async raiseAlarm({ deviceId, projectId, edge }: RaiseAlarmRequest): Promise<{ written: boolean }> {
      const result = await alarms.raise({
        edgeId: edge.edgeId,
        projectId,
        deviceId,
        ruleId: edge.ruleId,
        pin: edge.pin,
        severity: edge.severity,
        value: edge.value,
        at: edge.at,
      });
      if (!result) {
        logger.debug({ deviceId }, 'alarm not raised: device is gone');
        return { written: false };
      }
      return { written: result.changed };
    },

    /** Clears the rule's alarm when it is active. */
    async clearAlarm({ deviceId, edge }: ClearAlarmRequest): Promise<{ written: boolean }> {
      const result = await alarms.clear(deviceId, edge.ruleId, edge.at, false);
      return { written: result?.changed ?? false };
    },
  };
}
