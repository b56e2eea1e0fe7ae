import { ApplicationFailure } from '@temporalio/activity';
import nodemailer, { type Transporter } from 'nodemailer';
import type { NotificationRecord } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { admitEmail } from '../store/email-admission';
import type { ActivityDeps } from './deps';

export type ChannelDeps = Pick<ActivityDeps, 'redis' | 'logger' | 'smtpUrl' | 'mailFrom' | 'pushWebhookUrl' | 'emailDailyCap'>;

/**
 * What a channel did. `throttled` (the rule and device emailed within the minute) and `capped` (the
 * account's daily email cap is reached) are decisions, not failures: nothing is retried.
 */
export type ChannelOutcome = 'sent' | 'off' | 'no-recipients' | 'throttled' | 'capped';

interface Recipients {
  /** The project owner: whose daily email cap a notification spends. */
  ownerId: string | null;
  /** The verified addresses of the project's members. */
  verified: string[];
  /** How many members were left out for an address not verified. */
  unverified: number;
}

/** The members of a project whose current email was verified (DESIGN §11), and its owner. */
async function recipientsOf(redis: Redis, projectId: string): Promise<Recipients> {
  const roles = await redis.hgetall(keys.projectMembers(projectId));
  const userIds = Object.keys(roles);
  const users = await Promise.all(userIds.map((id) => redis.hmget(keys.user(id), 'email', 'verifiedEmail')));
  const verified = users.flatMap(([email, verifiedEmail]) => (email && email === verifiedEmail ? [email] : []));
  return {
    ownerId: userIds.find((id) => roles[id] === 'owner') ?? null,
    verified,
    unverified: users.filter(([email]) => email).length - verified.length,
  };
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
      const { ownerId, verified, unverified } = await recipientsOf(deps.redis, record.projectId);
      const log = deps.logger.child({ notificationId: record.id, projectId: record.projectId });
      if (unverified > 0) log.info({ unverified }, 'email: members with an unverified address left out');
      if (verified.length === 0 || ownerId === null) return 'no-recipients';
      const admission = await admitEmail(
        deps.redis,
        { id: record.id, ownerId, ruleId: record.ruleId, deviceId: record.deviceId },
        deps.emailDailyCap,
      );
      if (admission !== 'ok') {
        log.warn(
          { ownerId, ruleId: record.ruleId, deviceId: record.deviceId },
          `email not sent: ${admission === 'capped' ? "the account's daily email cap is reached" : 'this rule and device emailed within the minute'}`,
        );
        return admission;
      }
      mailer ??= nodemailer.createTransport(deps.smtpUrl);
      await mailer.sendMail({
        from,
        bcc: verified,
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
