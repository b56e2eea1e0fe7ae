import { rooms, type Alarm } from '../common/contracts';
import { createAlarmStore } from '../store/alarms';
import type { ActivityDeps } from './deps';
import type { ClearAlarmRequest, RaiseAlarmRequest } from './types';

/** An alarm's events go to its project's room and (as every event carrying the device's seq) its device's. */
export const alarmRooms = (alarm: Alarm): string[] => [rooms.project(alarm.projectId), rooms.device(alarm.deviceId)];

/** The alarm record writes the twin decides (docs/alarms.md); each change is emitted as `alarm` to the project's room. */
export function createAlarmActivities({ redis, emit, logger }: ActivityDeps) {
  const alarms = createAlarmStore(redis);

  return {
    /** Raises or updates the rule's alarm; a repeat of the same edge changes nothing (and emits nothing). */
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
      if (result.changed) await emit(alarmRooms(result.alarm), 'alarm', { ...result.alarm, seq: result.seq });
      return { written: result.changed };
    },

    /** Clears the rule's alarm when it is active. */
    async clearAlarm({ deviceId, edge }: ClearAlarmRequest): Promise<{ written: boolean }> {
      const result = await alarms.clear(deviceId, edge.ruleId, edge.at, false);
      if (result?.changed) await emit(alarmRooms(result.alarm), 'alarm', { ...result.alarm, seq: result.seq });
      return { written: result?.changed ?? false };
    },
  };
}
