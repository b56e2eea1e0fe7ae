import type { Config } from '../common/config';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { createAlarmStore } from './alarms';
import { createApiKeyStore } from './api-keys';
import { createCommandStore } from './commands';
import { createDeviceStore } from './devices';
import { createDeviceSyncStore } from './device-sync';
import { createLoginThrottleStore } from './login-throttle';
import { createMemberStore } from './members';
import { createNotificationQueries } from './notification-queries';
import { createPinSeriesStore } from './pin-series';
import { createPinStore } from './pins';
import { createProjectStore } from './projects';
import { createRateLimitStore } from './rate-limits';
import { createRuleStore } from './rules';
import { createSessionStore } from './sessions';
import { createUserStore } from './users';
import { createWidgetStore } from './widgets';

/** Every repository over one Redis connection. */
export function createStores(redis: Redis, config: Pick<Config, 'ACCESS_TOKEN_TTL_S' | 'TEMPORAL_TASK_QUEUE'>, credentialKey: string) {
  return {
    users: createUserStore(redis),
    sessions: createSessionStore(redis, config.ACCESS_TOKEN_TTL_S),
    apiKeys: createApiKeyStore(redis),
    projects: createProjectStore(redis),
    members: createMemberStore(redis),
    devices: createDeviceStore(redis, credentialKey, keys.outbox(config.TEMPORAL_TASK_QUEUE)),
    widgets: createWidgetStore(redis),
    rules: createRuleStore(redis),
    notifications: createNotificationQueries(redis),
    alarms: createAlarmStore(redis),
    commands: createCommandStore(redis),
    sync: createDeviceSyncStore(redis),
    pinSeries: createPinSeriesStore(redis),
    pins: createPinStore(redis),
    rateLimits: createRateLimitStore(redis),
    loginThrottle: createLoginThrottleStore(redis),
  };
}

export type Stores = ReturnType<typeof createStores>;
