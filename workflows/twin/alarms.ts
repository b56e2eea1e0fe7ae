/**
 * Threshold alarms (docs/alarms.md): the gateway finds the edges (a value entering or leaving a
 * rule's condition) and hands each to the twin, which owns the alarm's record and its timers:
 * forSeconds before a raise, re-notify while unacknowledged, and escalation.
 */
import { SEVERITY_PRIORITY } from '../../common/contracts';
import { msOf } from '../../common/iso-time';
import type { AlarmReading } from '../../common/twin-activities';
import type { AlarmEdgeInput } from '../../common/twin-contracts';
import type { Decision, Received, TwinEffect } from './effects';
import { type AlarmTimer, counted, type TwinState } from './state';

const ALARM_EDGES = new Set(['raise', 'clear']);

/**
 * `alarmEdge`: an edge from the outbox. Delivery is at least once and in no fixed order, so an
 * edge already applied (same id) or older than the last applied one is dropped here.
 */
export function receiveAlarmEdge(s0: TwinState, input: Partial<AlarmEdgeInput> | undefined, now: number): Received {
  const s = counted(s0, 'signals', now);
  const at = msOf(input?.at);
  if (!input || typeof input.edgeId !== 'string' || typeof input.ruleId !== 'string' || !ALARM_EDGES.has(input.edge ?? '') || at === null) {
    return { state: s, step: null, warning: 'alarm edge with a bad payload ignored' };
  }
  const edge = input as AlarmEdgeInput;
  const last = s.alarmEdges[edge.ruleId];
  if (last && (last.id === edge.edgeId || at < last.at)) return { state: s, step: null };
  return {
    state: { ...s, alarmEdges: { ...s.alarmEdges, [edge.ruleId]: { id: edge.edgeId, at } } },
    step: { kind: 'alarmEdge', edge, now },
  };
}

/** When a timer next needs the twin (epoch ms), or null. */
export function alarmDueAt(timer: AlarmTimer): number | null {
  const times = [timer.raiseAt, timer.renotifyAt, timer.escalateAt].filter((t): t is number => t !== null);
  return times.length === 0 ? null : Math.min(...times);
}

/** When the next alarm timer is due (epoch ms), or null. */
export function nextAlarmAt(s: TwinState): number | null {
  const times = Object.values(s.alarms).flatMap((timer) => alarmDueAt(timer) ?? []);
  return times.length === 0 ? null : Math.min(...times);
}

/** The rules whose alarm timer is due at `now`: their alarm and edge state must be read. */
export function alarmsDue(s: TwinState, now: number): string[] {
  return Object.entries(s.alarms)
    .filter(([, timer]) => (alarmDueAt(timer) ?? Infinity) <= now)
    .map(([ruleId]) => ruleId);
}

function withAlarm(s: TwinState, ruleId: string, timer: AlarmTimer | null): TwinState {
  const { [ruleId]: _old, ...alarms } = s.alarms;
  return { ...s, alarms: timer ? { ...alarms, [ruleId]: timer } : alarms };
}

/** The notification of an alarm: raised, reminded while unacknowledged, or escalated (to the escalation's channels too). */
export function alarmNotice(edge: AlarmEdgeInput, why: 'raised' | 'still active' | 'escalated'): TwinEffect {
  const channels = why === 'escalated' && edge.escalate ? [...new Set([...edge.channels, ...edge.escalate.channels])] : edge.channels;
  return {
    kind: 'notify',
    rule: { id: edge.ruleId, channels },
    type: 'threshold',
    title: why === 'raised' ? edge.title : `${edge.title} (${why})`,
    message: edge.message,
    priority: why === 'escalated' ? 'high' : SEVERITY_PRIORITY[edge.severity],
  };
}

/** The alarm raises now: the record, its notification unless the gateway sent it, and its reminders. */
function raiseNow(edge: AlarmEdgeInput, now: number): { timer: AlarmTimer | null; effects: TwinEffect[] } {
  const effects: TwinEffect[] = [{ kind: 'raiseAlarm', edge }];
  if (!edge.notified) effects.push(alarmNotice(edge, 'raised'));
  const renotifyAt = edge.renotifySeconds ? now + edge.renotifySeconds * 1000 : null;
  const escalateAt = edge.escalate ? now + edge.escalate.afterSeconds * 1000 : null;
  const timer: AlarmTimer | null =
    renotifyAt === null && escalateAt === null ? null : { edge, phase: 'active', raiseAt: null, renotifyAt, escalateAt };
  return { timer, effects };
}

/**
 * An edge's turn: a clear cancels a pending raise (nothing was raised) or clears the alarm; a
 * raise waits out forSeconds (counted from the value's time), or raises now.
 */
export function alarmEdgeStep(s: TwinState, edge: AlarmEdgeInput, now: number): Decision {
  const timer = s.alarms[edge.ruleId];
  if (edge.edge === 'clear') {
    return { state: withAlarm(s, edge.ruleId, null), effects: timer?.phase === 'pending' ? [] : [{ kind: 'clearAlarm', edge }] };
  }
  if (edge.forSeconds > 0 && timer?.phase !== 'active') {
    const raiseAt = (msOf(edge.at) ?? now) + edge.forSeconds * 1000;
    return { state: withAlarm(s, edge.ruleId, { edge, phase: 'pending', raiseAt, renotifyAt: null, escalateAt: null }), effects: [] };
  }
  const raised = raiseNow(edge, now);
  return { state: withAlarm(s, edge.ruleId, raised.timer), effects: raised.effects };
}

/**
 * A due alarm timer after a check at `now`: a pending raise goes ahead if the value is still
 * inside; an active alarm that is cleared or acknowledged (or gone) stops reminding, else it is
 * re-notified each period and escalated once.
 */
export function evaluateAlarm(
  timer: AlarmTimer,
  reading: AlarmReading | null,
  now: number,
): { timer: AlarmTimer | null; effects: TwinEffect[] } {
  if (timer.phase === 'pending') {
    if (timer.raiseAt === null || timer.raiseAt > now) return { timer, effects: [] };
    return reading?.inside ? raiseNow(timer.edge, now) : { timer: null, effects: [] };
  }
  if (!reading?.active || reading.acknowledged) return { timer: null, effects: [] };
  const effects: TwinEffect[] = [];
  let next = timer;
  if (timer.renotifyAt !== null && timer.renotifyAt <= now && timer.edge.renotifySeconds) {
    effects.push(alarmNotice(timer.edge, 'still active'));
    next = { ...next, renotifyAt: now + timer.edge.renotifySeconds * 1000 };
  }
  if (timer.escalateAt !== null && timer.escalateAt <= now) {
    effects.push(alarmNotice(timer.edge, 'escalated'));
    next = { ...next, escalateAt: null };
  }
  return { timer: alarmDueAt(next) === null ? null : next, effects };
}

/** The due alarms (`ruleIds`) after a read of their state (`readings`). */
export function alarmsChecked(s: TwinState, ruleIds: string[], readings: Record<string, AlarmReading> | undefined, now: number): Decision {
  const alarms = { ...s.alarms };
  const effects: TwinEffect[] = [];
  for (const ruleId of ruleIds) {
    const timer = alarms[ruleId];
    if (!timer) continue;
    const result = evaluateAlarm(timer, readings?.[ruleId] ?? null, now);
    if (result.timer) alarms[ruleId] = result.timer;
    else delete alarms[ruleId];
    effects.push(...result.effects);
  }
  return { state: { ...s, alarms }, effects };
}
