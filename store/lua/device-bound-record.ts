import type { Redis } from '../../common/redis';
import { luaScript } from './load';

/**
 * Records bound to a device and indexed by it and by its project (widgets, notification rules):
 * stored as JSON, created only while the device exists in that project, so a create racing a
 * device delete leaves no orphan.
 */
const CREATE = luaScript('create-bound-record-4');

/** Deletes the record, drops it from both indexes and from any further hash keyed by its id. */
const DELETE = luaScript('delete-bound-record-n');

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
