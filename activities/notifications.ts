import type { NotificationChannel, NotificationRecord } from '../common/contracts';
import { rooms } from '../common/contracts';
import { keys } from '../common/redis-keys';
import { createNotificationStore } from '../store/notifications';
import type { ActivityDeps } from './deps';
import type { CreateNotificationRequest, CreateNotificationResult } from '../common/twin-activities';

/**
 * The `inApp` channel: the stored record plus a Socket.IO `notification` to the project room.
 * `email` and `push` are left to their own activities (activities/channels.ts), which the
 * notification delivery workflow (workflows/notification-delivery.ts) runs after this one, each
 * retried on its own; they are reported here as skipped, never as delivered.
 */
async function deliverInApp(
  { emit }: ActivityDeps,
  record: NotificationRecord,
): Promise<Pick<CreateNotificationResult, 'delivered' | 'skipped'>> {
  const inApp = record.channels.includes('inApp');
  if (inApp) await emit([rooms.project(record.projectId)], 'notification', record);
  return {
    delivered: inApp ? ['inApp'] : [],
    skipped: record.channels.filter((c): c is NotificationChannel => c !== 'inApp'),
  };
}

export function createNotificationActivities(deps: ActivityDeps) {
  const store = createNotificationStore(deps.redis, deps.notificationRetentionDays);
  return {
    /**
     * Stores the record under its caller-chosen id (a retry finds it and creates nothing new),
     * then emits it in-app. A retry after a failed emit emits again.
     */
    async createNotification({ record }: CreateNotificationRequest): Promise<CreateNotificationResult> {
      const outcome = await store.create(record, record.deviceId ? { onlyIfExists: keys.device(record.deviceId) } : {});
      if (outcome === 'gone') return { outcome, delivered: [], skipped: [] };
      return { outcome, ...(await deliverInApp(deps, record)) };
    },
  };
}
