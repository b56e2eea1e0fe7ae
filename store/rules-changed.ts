import type { Redis } from '../common/redis';

/** Redis pub/sub channel on which a rule change names the device whose rules changed. */
export const RULES_CHANGED_CHANNEL = 'dds:rules-changed';

/** Redis pub/sub channel on which a change to a project's scoped rules names the project. */
export const SCOPED_RULES_CHANGED_CHANNEL = 'dds:scoped-rules-changed';

/** Tells every gateway node that a device's rules (or what its scoped rules cover: tags, template) changed. */
export async function publishRulesChanged(redis: Redis, deviceId: string): Promise<void> {
  await redis.publish(RULES_CHANGED_CHANNEL, deviceId);
}

/** Tells every gateway node that a project's scoped rules changed. */
export async function publishScopedRulesChanged(redis: Redis, projectId: string): Promise<void> {
  await redis.publish(SCOPED_RULES_CHANGED_CHANNEL, projectId);
}
