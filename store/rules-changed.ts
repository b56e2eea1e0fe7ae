import type { Redis } from '../common/redis';

/** Redis pub/sub channel on which a rule change names the device whose rules changed. */
export const RULES_CHANGED_CHANNEL = 'dds:rules-changed';

/** Tells every gateway node that a device's rules changed. */
export async function publishRulesChanged(redis: Redis, deviceId: string): Promise<void> {
  await redis.publish(RULES_CHANGED_CHANNEL, deviceId);
}
