import type { Template } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';

/**
 * A device's heartbeat timeout as set (DESIGN §12): its own, else its template's; null when neither
 * sets one (the service default, DEVICE_HEARTBEAT_TIMEOUT_S, then applies: common/liveness.ts).
 */
export async function readHeartbeat(redis: Redis, deviceId: string): Promise<number | null> {
  const [own, templateId] = await redis.hmget(keys.device(deviceId), 'heartbeatTimeoutS', 'templateId');
  if (own) return Number(own);
  if (!templateId) return null;
  const json = await redis.get(keys.template(templateId));
  return json === null ? null : ((JSON.parse(json) as Template).heartbeatTimeoutS ?? null);
}
