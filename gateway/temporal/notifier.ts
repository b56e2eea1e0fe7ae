import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { notificationWorkflowId, type NotificationRecord } from '../../common/contracts';
import { DependencyUnavailableError } from '../../common/errors';
import { deliverNotification } from '../../workflows/notification-delivery';
import { withTemporalDeadline } from './temporal-deadline';
import { isTemporalDown } from './temporal-down';

/** How long handing a notification to Temporal may take before it counts as Temporal down. */
const START_TIMEOUT_MS = 1500;

/**
 * Hands a notification to Temporal: a short workflow whose activity stores it and delivers its
 * channels with retries. The workflow id is the notification id and is never reused, so a repeated
 * hand-off (the outbox relay delivers at least once) is one delivery. A Temporal that is down or
 * misses the deadline is DependencyUnavailableError(temporal).
 */
export function createNotifier(client: Client, taskQueue: string) {
  return async (record: NotificationRecord): Promise<void> => {
    try {
      await withTemporalDeadline(client.connection, START_TIMEOUT_MS, () =>
        client.workflow.start(deliverNotification, {
          workflowId: notificationWorkflowId(record.id),
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          taskQueue,
          args: [record],
        }),
      );
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return;
      if (isTemporalDown(err)) throw new DependencyUnavailableError('temporal', { cause: err });
      throw err;
    }
  };
}
