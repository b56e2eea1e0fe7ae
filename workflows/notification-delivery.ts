import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { NotificationChannel, NotificationRecord } from '../common/contracts';
import type { TwinActivities } from '../activities';
import { LOCAL_RETRY_THRESHOLD } from './local-retry';

/** Storing the record and the in-app event: retried until it succeeds. */
const storingOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;

const storingQueued = proxyActivities<TwinActivities>(storingOptions);

/**
 * Deliveries started after this patch store the record as a local activity, in their first
 * workflow task (docs/architecture.md, "The twin's steps run in its workflow task": the same
 * reasons, the same retry threshold); those before it, as an activity of the task queue.
 */
export const LOCAL_STORE_PATCH = 'notification-local-store';

const storingLocal = proxyLocalActivities<TwinActivities>({ ...storingOptions, localRetryThreshold: LOCAL_RETRY_THRESHOLD });

/** Email and push: each retried with backoff on its own, given up after a bounded number of tries. */
const sending = proxyActivities<TwinActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 8 },
});

export type ChannelResult = 'sent' | 'off' | 'no-recipients' | 'throttled' | 'capped' | 'failed' | 'skipped';

/**
 * Delivers one notification: the stored record and its in-app event first, then email and push
 * side by side; a failing channel never blocks another, nor the stored record. Every notification
 * of the service (threshold, device status, no data, notify endpoints) is delivered here.
 */
export async function deliverNotification(record: NotificationRecord): Promise<Record<NotificationChannel, ChannelResult>> {
  const result: Record<NotificationChannel, ChannelResult> = { inApp: 'skipped', email: 'skipped', push: 'skipped' };
  const storing = patched(LOCAL_STORE_PATCH) ? storingLocal : storingQueued;
  const { outcome } = await storing.createNotification({ record });
  if (outcome === 'gone') return result;
  if (record.channels.includes('inApp')) result.inApp = 'sent';
  const send = async (channel: 'email' | 'push', run: () => Promise<ChannelResult>) => {
    if (!record.channels.includes(channel)) return;
    result[channel] = await run().catch((): ChannelResult => 'failed');
  };
  await Promise.all([
    send('email', () => sending.sendNotificationEmail({ record })),
    send('push', () => sending.sendNotificationPush({ record })),
  ]);
  return result;
}
