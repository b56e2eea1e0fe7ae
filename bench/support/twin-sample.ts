import type { Client } from '@temporalio/client';
import { twinWorkflowId } from '../../common/contracts';
import { ACTION_KINDS, actionsInWindow, pendingAttempts, type ActionCount } from './twin-actions';

/** A sample of twins at the start of a window: each one's history length and pending activities' attempts. */
export interface TwinMark {
  ids: string[];
  at: number;
  lengths: number[];
  attempts: Map<string, number>[];
}

async function historyLength(client: Client, deviceId: string): Promise<number> {
  return (await client.workflow.getHandle(twinWorkflowId(deviceId)).fetchHistory()).events?.length ?? 0;
}

export async function markTwins(client: Client, ids: string[]): Promise<TwinMark> {
  const [lengths, attempts] = await Promise.all([
    Promise.all(ids.map((id) => historyLength(client, id))),
    Promise.all(ids.map((id) => pendingAttempts(client, id))),
  ]);
  return { ids, at: Date.now(), lengths, attempts };
}

/** What the sample's twins did since `mark`: history events added to each, and their Temporal actions summed (bench/support/twin-actions.ts). */
export async function twinsSince(client: Client, mark: TwinMark): Promise<{ events: number[]; actions: ActionCount }> {
  const to = Date.now();
  const events = await Promise.all(mark.ids.map(async (id, i) => (await historyLength(client, id)) - (mark.lengths[i] ?? 0)));
  const counts = await Promise.all(
    mark.ids.map(async (id, i) =>
      actionsInWindow(client, id, mark.at, to, mark.attempts[i] as Map<string, number>, await pendingAttempts(client, id)),
    ),
  );
  const actions = Object.fromEntries(ACTION_KINDS.map((k) => [k, counts.reduce((sum, c) => sum + c[k], 0)])) as unknown as ActionCount;
  return { events, actions };
}
