/**
 * What the twin's main loop does next: a check-back whose deadline has come (check-back.ts), a
 * hand-over to a new run (continue-as-new.ts), or a wait until the next deadline, which a message
 * may end early.
 */
import { nextAlarmAt } from './alarms';
import { type HandOver, handOver, type HistoryInfo, handOverNewlyDue } from './continue-as-new';
import { orphanDeadline } from './lifecycle';
import { heartbeatDeadline, heartbeatTimed } from './liveness';
import { nextNoDataAt } from './no-data';
import type { TwinState } from './state';
import { nextHoldAt } from './status-rules';
import type { RunConfig } from './version';

/**
 * When the twin must next check back (epoch ms), or null when nothing is timed. A missing device
 * hash waits only for its grace period; runs with the liveness watch leave the heartbeat to it.
 */
export function nextDeadline(s: TwinState, cfg: RunConfig, now: number): number | null {
  const orphan = orphanDeadline(s, cfg);
  if (orphan !== null) return orphan;
  const times = [heartbeatTimed(cfg) ? heartbeatDeadline(s, cfg, now) : null, nextNoDataAt(s), nextAlarmAt(s), nextHoldAt(s)];
  const due = times.filter((t): t is number => t !== null);
  return due.length === 0 ? null : Math.min(...due);
}

export type NextMove =
  | { kind: 'check-back' }
  | { kind: 'continue-as-new' }
  /** Until this time (epoch ms, null: until woken), knowing whether a hand-over was already due. */
  | { kind: 'wait'; until: number | null; handingOver: boolean };

export function nextMove(s: TwinState, cfg: RunConfig, info: HistoryInfo, now: number): NextMove {
  const deadline = nextDeadline(s, cfg, now);
  if (deadline !== null && deadline <= now) return { kind: 'check-back' };
  const over: HandOver = handOver(s, info, now);
  if (over.kind === 'now') return { kind: 'continue-as-new' };
  if (over.kind === 'not-due') return { kind: 'wait', until: deadline, handingOver: false };
  return { kind: 'wait', until: deadline === null ? over.at : Math.min(deadline, over.at), handingOver: true };
}

/** Whether a wait ends before its time: the twin is ending, a hand-over became due, or a deadline moved earlier. */
export function waitOver(s: TwinState, cfg: RunConfig, wait: Extract<NextMove, { kind: 'wait' }>, info: HistoryInfo, now: number): boolean {
  if (s.ending !== null || handOverNewlyDue(s, info, wait.handingOver)) return true;
  const next = nextDeadline(s, cfg, now);
  return next !== null && (wait.until === null || next < wait.until);
}
