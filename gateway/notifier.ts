import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { notificationWorkflowId, type NotificationRecord } from '../common/contracts';
import { deliverNotification } from '../workflows/notification-delivery';

/**
 * Hands a notification to Temporal: a short workflow whose activity stores it and delivers its
 * channels with retries. The workflow id is the notification id and is never reused, so a repeated
 * hand-off (the outbox relay delivers at least once) is one delivery.
 */
export function createNotifier(client: Client, taskQueue: string) {
  return async (record: NotificationRecord): Promise<void> => {
    await client.workflow
      .start(deliverNotification, {
        workflowId: notificationWorkflowId(record.id),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        taskQueue,
        args: [record],
      })
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      });
  };
}
