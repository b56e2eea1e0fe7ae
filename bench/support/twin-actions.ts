import type { Client, WorkflowHandle } from '@temporalio/client';
import { twinWorkflowId } from '../../common/contracts';

/** One event of a workflow run's history, as fetchHistory gives it. */
export type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/**
 * Temporal actions of one twin in a time window, as Temporal Cloud bills them
 * (docs.temporal.io/cloud/actions): workflow starts (and continue-as-new), signals, Updates,
 * activity attempts, timers, child workflows, markers and search-attribute upserts. Counted from
 * the history (events whose time is in the window) plus the activity retries the history does not
 * record: the attempt number of each still-pending activity, read by `attempts()` at both ends.
 */
export interface ActionCount {
  start: number;
  signal: number;
  update: number;
  activity: number;
  timer: number;
  child: number;
  marker: number;
  /** Retries of pending activities (the liveness watch's re-checks). */
  retries: number;
}

export const ACTION_KINDS: (keyof ActionCount)[] = ['start', 'signal', 'update', 'activity', 'timer', 'child', 'marker', 'retries'];

export const total = (c: ActionCount): number => ACTION_KINDS.reduce((sum, k) => sum + c[k], 0);

/** Attempts so far of each pending activity of the twin's current run, by activity id. */
export async function pendingAttempts(client: Client, deviceId: string): Promise<Map<string, number>> {
  const description = await client.workflow.getHandle(twinWorkflowId(deviceId)).describe();
  const pending = description.raw.pendingActivities ?? [];
  return new Map(pending.map((a) => [String(a.activityId), Number(a.attempt ?? 1)]));
}

export async function actionsInWindow(
  client: Client,
  deviceId: string,
  from: number,
  to: number,
  attemptsAtStart: Map<string, number>,
  attemptsAtEnd: Map<string, number>,
): Promise<ActionCount> {
  const history = await client.workflow.getHandle(twinWorkflowId(deviceId)).fetchHistory();
  const c = countActions(history.events ?? [], from, to, attemptsAtStart);
  for (const [activityId, attempt] of attemptsAtEnd) {
    c.retries += Math.max(0, attempt - (attemptsAtStart.get(activityId) ?? 1));
  }
  return c;
}

/** Actions of one run's history events whose time is in [from, to]; retries of activities that finished in it. */
export function countActions(events: HistoryEvent[], from: number, to: number, attemptsAtStart: Map<string, number>): ActionCount {
  const c: ActionCount = { start: 0, signal: 0, update: 0, activity: 0, timer: 0, child: 0, marker: 0, retries: 0 };
  /** Activities completed in the window: their started event carries the final attempt number. */
  const scheduledIds = new Map<number, string>();
  for (const event of events) {
    const at = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
    const id = Number(event.eventId ?? 0);
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) scheduledIds.set(id, String(scheduled.activityId));
    if (at < from || at > to) continue;
    if (event.workflowExecutionStartedEventAttributes) c.start += 1;
    if (event.workflowExecutionSignaledEventAttributes) c.signal += 1;
    if (event.workflowExecutionUpdateAcceptedEventAttributes) c.update += 1;
    if (scheduled) c.activity += 1;
    if (event.timerStartedEventAttributes) c.timer += 1;
    if (event.startChildWorkflowExecutionInitiatedEventAttributes) c.child += 1;
    if (event.markerRecordedEventAttributes || event.upsertWorkflowSearchAttributesEventAttributes) c.marker += 1;
    const started = event.activityTaskStartedEventAttributes;
    if (started) {
      // Attempts beyond the first of an activity that finished in the window: retries before it
      // started this last time, less those already made before the window.
      const activityId = scheduledIds.get(Number(started.scheduledEventId ?? 0)) ?? '';
      const before = attemptsAtStart.get(activityId) ?? 1;
      c.retries += Math.max(0, Number(started.attempt ?? 1) - before);
    }
  }
  return c;
}
