import type { OutboxIntent, WrittenIntent } from '../../common/outbox-intents';
import type { Quota } from '../../common/quotas';
import type { Redis } from '../../common/redis';
import { streamOf } from '../../common/redis-keys';
import { intentArgs, writtenIntent } from '../outbox';
import { saddWithin } from '../quota-ledger';
import { luaScript } from './load';

/**
 * Records bound to a device and indexed by it and by its project (widgets, notification rules),
 * stored as JSON. The record, the device's index and the project's index are three slots
 * (docs/architecture.md "Redis Cluster"), changed in single-slot steps ordered so that a crash
 * between two leaves nothing anyone sees:
 * - create: the project's index (with the project's quota of such records checked in the same
 *   step: store/quota-ledger.ts), then the device's (only while the device is in that project, so a
 *   create racing a device delete is refused), then the record with the change's outbox intent;
 * - delete: the record with its intent first, then the device's index (and per-record state), then
 *   the project's.
 * Readers keep only ids whose record exists and is bound (`isBound`): its id is in its device's index.
 */
const BIND = luaScript('bind-record-2');
const PUT = luaScript('put-record-2');
const TAKE = luaScript('take-record-2');

export interface BoundRecordKeys {
  device: string;
  record: string;
  projectIndex: string;
  deviceIndex: string;
  /** The outbox family (keys.outbox): an intent goes to the record's own shard's stream. */
  outbox: string;
}

/** What a change did: `done` false when it was refused; `written` the intent it wrote, if one was asked for. */
export interface BoundRecordChange {
  done: boolean;
  written: WrittenIntent | null;
}

/** The outbox stream in the record's slot. */
export function recordStream(outbox: string, recordId: string): string {
  return streamOf(outbox, recordId);
}

/**
 * Refused (done false) when the device is gone or belongs to another project; throws
 * QuotaExceededError, nothing written, when the project's index holds `quota`'s limit already.
 */
export async function createBoundRecord(
  redis: Redis,
  k: BoundRecordKeys,
  record: { id: string; projectId: string },
  quota: Quota,
  intent: OutboxIntent | null = null,
): Promise<BoundRecordChange> {
  await saddWithin(redis, k.projectIndex, record.id, quota);
  if ((await BIND(redis, [k.device, k.deviceIndex], [record.projectId, record.id])) !== 1) {
    await redis.srem(k.projectIndex, record.id);
    return { done: false, written: null };
  }
  const stream = recordStream(k.outbox, record.id);
  const reply = await PUT(redis, [k.record, stream], [JSON.stringify(record), ...intentArgs(intent)]);
  return { done: true, written: intent === null ? null : writtenIntent(reply, intent, stream) };
}

/** Refused (done false) when the record was already gone. `alsoFrom`: hashes of the device's slot holding per-record state to clear. */
export async function deleteBoundRecord(
  redis: Redis,
  k: Omit<BoundRecordKeys, 'device'>,
  id: string,
  { alsoFrom = [], intent = null }: { alsoFrom?: string[]; intent?: OutboxIntent | null } = {},
): Promise<BoundRecordChange> {
  const stream = recordStream(k.outbox, id);
  const reply = await TAKE(redis, [k.record, stream], intentArgs(intent));
  if (reply !== 0) {
    const device = redis.multi().srem(k.deviceIndex, id);
    for (const hash of alsoFrom) device.hdel(hash, id);
    await device.exec();
  }
  await redis.srem(k.projectIndex, id);
  return { done: reply !== 0, written: intent === null ? null : writtenIntent(reply, intent, stream) };
}

/** Whether a record read by id is bound to its device (a create that stopped halfway is not). */
export async function isBound(redis: Redis, deviceIndex: string, id: string): Promise<boolean> {
  return (await redis.sismember(deviceIndex, id)) === 1;
}

/** The records of ids (each in its own slot) that exist and are bound (in the index `indexOf` names), oldest first. */
export async function boundRecords<T extends { id: string; createdAt: string }>(
  redis: Redis,
  ids: string[],
  recordKey: (id: string) => string,
  indexOf: (record: T) => string,
  parse: (json: string) => T,
): Promise<T[]> {
  const docs = await Promise.all(ids.map((id) => redis.get(recordKey(id))));
  const records = docs.flatMap((json) => (json === null ? [] : [parse(json)]));
  const bound = await Promise.all(records.map((r) => isBound(redis, indexOf(r), r.id)));
  return records.filter((_, i) => bound[i]).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}
