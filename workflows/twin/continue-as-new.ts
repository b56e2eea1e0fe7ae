/**
 * When a run of the twin hands over to a new one (continue-as-new), in one place: once Temporal
 * suggests it or a budget is spent, at the first lull in messages, or at once near Temporal's
 * refusal of signals. The state crosses over through state.ts (carryOver, resumeState).
 */
import type { TwinState } from './state';

/** Continue-as-new at this history length even if Temporal has not suggested it yet. */
export const HISTORY_EVENT_BUDGET = 10_000;
/** ...or after this many messages (signals and Updates) in one run: short runs replay fast. */
export const RUN_MESSAGE_BUDGET = 2_000;
/**
 * Continue-as-new fails when a message lands while it is being committed (the server makes the
 * run take the message first, from a full replay). So once due, it waits for a lull of this long
 * without messages, unless the run nears Temporal's refusal of signals (10,000 per run).
 */
export const CONTINUE_AS_NEW_LULL_MS = 300;
export const RUN_MESSAGE_HARD_LIMIT = 4_000;

/** What Temporal tells of the run's history (`workflowInfo()`). */
export interface HistoryInfo {
  continueAsNewSuggested: boolean;
  historyLength: number;
}

/** Whether this run should hand over to a new one (Temporal suggests it, or a budget is spent). */
export function continueAsNewDue(s: TwinState, info: HistoryInfo): boolean {
  return info.continueAsNewSuggested || info.historyLength > HISTORY_EVENT_BUDGET || s.run.messages > RUN_MESSAGE_BUDGET;
}

/** Not due; due and to be done now; or due once the lull is long enough (epoch ms). */
export type HandOver = { kind: 'not-due' } | { kind: 'now' } | { kind: 'at'; at: number };

export function handOver(s: TwinState, info: HistoryInfo, now: number): HandOver {
  if (!continueAsNewDue(s, info)) return { kind: 'not-due' };
  if (s.run.messages >= RUN_MESSAGE_HARD_LIMIT || now - s.run.lastMessageAt >= CONTINUE_AS_NEW_LULL_MS) return { kind: 'now' };
  return { kind: 'at', at: s.run.lastMessageAt + CONTINUE_AS_NEW_LULL_MS };
}

/** While the twin waits: whether messages since have made the hand-over due (`wasDue`: it was already) or urgent. */
export function handOverNewlyDue(s: TwinState, info: HistoryInfo, wasDue: boolean): boolean {
  return s.run.messages >= RUN_MESSAGE_HARD_LIMIT || (!wasDue && continueAsNewDue(s, info));
}
