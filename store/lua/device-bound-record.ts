import type { Redis } from '../../common/redis';
import { redisScript } from '../../common/redis-script';

/**
 * Records bound to a device and indexed by it and by its project (widgets, notification rules):
 * stored as JSON, created only while the device exists in that project, so a create racing a
 * device delete leaves no orphan.
 */
const CREATE = redisScript(`
if redis.call('HGET', KEYS[1], 'projectId') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[3])
return 1`);

/** Deletes the record, drops it from both indexes and from any further hash keyed by its id. */
const DELETE = redisScript(`
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
for i = 2, #KEYS do
  if i <= 3 then redis.call('SREM', KEYS[i], ARGV[1]) else redis.call('HDEL', KEYS[i], ARGV[1]) end
end
return 1`);

export interface BoundRecordKeys {
  device: string;
  record: string;
  projectIndex: string;
  deviceIndex: string;
}

/** False when the device is gone or belongs to another project. */
export async function createBoundRecord(
  redis: Redis,
  k: BoundRecordKeys,
  record: { id: string; projectId: string },
): Promise<boolean> {
  const done = await CREATE(redis, [k.device, k.record, k.projectIndex, k.deviceIndex], [record.projectId, JSON.stringify(record), record.id]);
  return done === 1;
}

/** False when the record was already gone. `alsoFrom`: hashes holding per-record state to clear. */
export async function deleteBoundRecord(
  redis: Redis,
  k: Omit<BoundRecordKeys, 'device'>,
  id: string,
  alsoFrom: string[] = [],
): Promise<boolean> {
  const done = await DELETE(redis, [k.record, k.projectIndex, k.deviceIndex, ...alsoFrom], [id]);
  return done === 1;
}
