import type { OutboxIntent, WrittenIntent } from '../../common/outbox-intents';
import type { Redis } from '../../common/redis';
import { intentArgs, writtenIntent } from '../outbox';
import { luaScript } from './load';

/**
 * Records bound to a device and indexed by it and by its project (widgets, notification rules):
 * stored as JSON, created only while the device exists in that project, so a create racing a
 * device delete leaves no orphan. A change may write an outbox intent in the same step.
 */
const CREATE = luaScript('create-bound-record-5');

/** Deletes the record, drops it from both indexes and from any further hash keyed by its id. */
const DELETE = luaScript('delete-bound-record-n');

export interface BoundRecordKeys {
  device: string;
  record: string;
  projectIndex: string;
  deviceIndex: string;
  /** The outbox stream an intent goes to. */
  outbox: string;
}

/** What a change did: `done` false when it was refused; `written` the intent it wrote, if one was asked for. */
export interface BoundRecordChange {
  done: boolean;
  written: WrittenIntent | null;
}

function changeOf(reply: unknown, intent: OutboxIntent | null): BoundRecordChange {
  return { done: reply !== 0, written: intent === null ? null : writtenIntent(reply, intent) };
}

/** Refused (done false) when the device is gone or belongs to another project. */
export async function createBoundRecord(
  redis: Redis,
  k: BoundRecordKeys,
  record: { id: string; projectId: string },
  intent: OutboxIntent | null = null,
): Promise<BoundRecordChange> {
  const reply = await CREATE(
    redis,
    [k.device, k.record, k.projectIndex, k.deviceIndex, k.outbox],
    [record.projectId, JSON.stringify(record), record.id, ...intentArgs(intent)],
  );
  return changeOf(reply, intent);
}

/** Refused (done false) when the record was already gone. `alsoFrom`: hashes holding per-record state to clear. */
export async function deleteBoundRecord(
  redis: Redis,
  k: Omit<BoundRecordKeys, 'device'>,
  id: string,
  { alsoFrom = [], intent = null }: { alsoFrom?: string[]; intent?: OutboxIntent | null } = {},
): Promise<BoundRecordChange> {
  const reply = await DELETE(redis, [k.record, k.projectIndex, k.deviceIndex, k.outbox, ...alsoFrom], [id, ...intentArgs(intent)]);
  return changeOf(reply, intent);
}
