import type { Logger } from '../common/logger';
import type { MqttClient } from '../common/mqtt';
import type { Redis } from '../common/redis';
import type { EmitToRooms } from './socket-events';

/** What the twin's activities need; the worker builds these once and injects them. */
export interface ActivityDeps {
  redis: Redis;
  mqtt: MqttClient;
  /** Socket.IO through @socket.io/redis-emitter, so a worker needs no Socket.IO server. */
  emit: EmitToRooms;
  logger: Logger;
  /** MQTT topic root (`MQTT_TOPIC_ROOT`, default `dds`). */
  topicRoot: string;
  /** SMTP server of the `email` channel (`SMTP_URL`); off when unset. */
  smtpUrl?: string;
  /** Sender of notification emails (`MAIL_FROM`). */
  mailFrom?: string;
  /** Receiver of the `push` channel (`PUSH_WEBHOOK_URL`); off when unset. */
  pushWebhookUrl?: string;
  /** Notification emails one account may cause per UTC day (`EMAIL_DAILY_CAP_PER_ACCOUNT`). */
  emailDailyCap: number;
  /** How long notification records are kept (`NOTIFICATION_RETENTION_DAYS`). */
  notificationRetentionDays: number;
}
