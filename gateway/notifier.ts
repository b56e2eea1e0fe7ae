import type { Client } from '@temporalio/client';
import { notificationWorkflowId, type NotificationRecord } from '../common/contracts';
import { deliverNotification } from '../workflows/notification-delivery';

/**
 * Hands a notification to Temporal: a short workflow whose activity stores it and delivers its
 * channels with retries. The workflow id is the notification id, so a repeated hand-off is one delivery.
 */
export function createNotifier(client: Client, taskQueue: string) {
  return async (record: NotificationRecord): Promise<void> => {
    await client.workflow.start(deliverNotification, {
      workflowId: notificationWorkflowId(record.id),
      taskQueue,
      args: [record],
    });
  };
}
