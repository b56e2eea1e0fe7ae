import type { Config } from '../common/config';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { createAlarmStore } from './alarms';
import { createApiKeyStore } from './api-keys';
import { createCommandStore } from './commands';
import { createDeviceStore } from './devices';
import { createDeviceSyncStore } from './device-sync';
import { createEmailVerificationStore } from './email-verifications';
import { createFirmwareStore } from './firmware';
import { createIngestStore } from './ingest-store';
import { createJobStore } from './jobs';
import { createLoginThrottleStore } from './login-throttle';
import { createMemberStore } from './members';
import { createNotificationQueries } from './notification-queries';
import { createOtaTokens } from './ota-tokens';
import { createPinSeriesStore } from './pin-series';
import { createPgFirmwareBlobs } from './pg/firmware-blobs';
import type { Pool } from './pg/pool';
import { createPinStore } from './pins';
import { createProjectStore } from './projects';
import { createQuotaUsage } from './quota-usage';
import { createRateLimitStore } from './rate-limits';
import { createProvisioningStore } from './provisioning';
import { createProvisionThrottleStore } from './provision-throttle';
import { createRegisterThrottleStore } from './register-throttle';
import { createRuleStore } from './rules';
import { createSessionStore } from './sessions';
import { createTemplateStore } from './templates';
import { createUserStore } from './users';
import { createWidgetStore } from './widgets';

/** Every repository over one Redis connection, and pin history over the PostgreSQL pool. */
export function createStores(
  redis: Redis,
  pool: Pool,
  config: Pick<
    Config,
    'ACCESS_TOKEN_TTL_S' | 'TEMPORAL_TASK_QUEUE' | 'NOTIFICATION_RETENTION_DAYS' | 'HISTORY_STREAM_MAX' | 'DEVICE_HEARTBEAT_TIMEOUT_S'
  >,
  credentialKey: string,
) {
  const outbox = keys.outbox(config.TEMPORAL_TASK_QUEUE);
  const historyStream = keys.historyStream(config.TEMPORAL_TASK_QUEUE);
  const pinSeries = createPinSeriesStore(redis, pool, historyStream);
  const commands = createCommandStore(redis);
  return {
    users: createUserStore(redis),
    emailVerifications: createEmailVerificationStore(redis),
    sessions: createSessionStore(redis, config.ACCESS_TOKEN_TTL_S),
    apiKeys: createApiKeyStore(redis),
    projects: createProjectStore(redis, outbox),
    members: createMemberStore(redis),
    devices: createDeviceStore(redis, credentialKey, outbox),
    widgets: createWidgetStore(redis, outbox),
    rules: createRuleStore(redis, outbox),
    templates: createTemplateStore(redis, outbox, config.DEVICE_HEARTBEAT_TIMEOUT_S),
    notifications: createNotificationQueries(redis, config.NOTIFICATION_RETENTION_DAYS),
    alarms: createAlarmStore(redis),
    commands,
    ingest: createIngestStore(redis, commands, {
      historyStream,
      historyStreamMax: config.HISTORY_STREAM_MAX,
      outbox,
      unsentCommands: keys.unsentCommands(config.TEMPORAL_TASK_QUEUE),
    }),
    sync: createDeviceSyncStore(redis),
    pinSeries,
    firmware: createFirmwareStore(pool),
    firmwareBlobs: createPgFirmwareBlobs(pool),
    otaTokens: createOtaTokens(redis),
    jobs: createJobStore(redis),
    pins: createPinStore(redis, pinSeries),
    rateLimits: createRateLimitStore(redis),
    loginThrottle: createLoginThrottleStore(redis),
    quotaUsage: createQuotaUsage(redis),
    registerThrottle: createRegisterThrottleStore(redis),
    provisioning: createProvisioningStore(redis),
    provisionThrottle: createProvisionThrottleStore(redis),
  };
}

export type Stores = ReturnType<typeof createStores>;
