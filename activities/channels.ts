import { ApplicationFailure } from '@temporalio/activity';
import nodemailer, { type Transporter } from 'nodemailer';
import type { NotificationRecord } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import type { ActivityDeps } from './deps';

export type ChannelDeps = Pick<ActivityDeps, 'redis' | 'smtpUrl' | 'mailFrom' | 'pushWebhookUrl'>;

export type ChannelOutcome = 'sent' | 'off' | 'no-recipients';

/** The email addresses of every member of a project. */
async function memberEmails(redis: Redis, projectId: string): Promise<string[]> {
  const userIds = await redis.hkeys(keys.projectMembers(projectId));
  const emails = await Promise.all(userIds.map((id) => redis.hget(keys.user(id), 'email')));
  return emails.filter((e): e is string => Boolean(e));
}

/**
 * The `email` and `push` channels of a notification, one activity each, so Temporal retries each
 * on its own and a failing one never holds back another.
 */
export function createChannelActivities(deps: ChannelDeps) {
  let mailer: Transporter | null = null;
  const from = deps.mailFrom ?? 'Device Data Service <notifications@dds.local>';

  return {
    async sendNotificationEmail({ record }: { record: NotificationRecord }): Promise<ChannelOutcome> {
      if (!deps.smtpUrl) return 'off';
      const to = await memberEmails(deps.redis, record.projectId);
      if (to.length === 0) return 'no-recipients';
      mailer ??= nodemailer.createTransport(deps.smtpUrl);
      await mailer.sendMail({
        from,
        bcc: to,
        subject: record.title,
        text: `${record.message}\n\nProject ${record.projectId}${record.deviceId ? `, device ${record.deviceId}` : ''}, ${record.createdAt}`,
        headers: { 'X-DDS-Notification-Id': record.id },
      });
      return 'sent';
    },

    async sendNotificationPush({ record }: { record: NotificationRecord }): Promise<ChannelOutcome> {
      if (!deps.pushWebhookUrl) return 'off';
      const res = await fetch(deps.pushWebhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-dds-notification-id': record.id },
        body: JSON.stringify(record),
        signal: AbortSignal.timeout(10_000),
      });
      if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
        throw ApplicationFailure.nonRetryable(`push receiver refused the notification: HTTP ${res.status}`);
      }
      if (!res.ok) throw new Error(`push receiver answered HTTP ${res.status}`);
      return 'sent';
    },
  };
}
