/**
 * A check-back: a timer of the twin fired (schedule.ts), or the liveness watch ended. The twin
 * reads what the gateway recorded since (activities/mirror.ts `readLastSeen`), then each concern
 * decides in turn from that one read: the device hash (lifecycle.ts), the heartbeat (liveness.ts),
 * kept commands (commands.ts), status holds (status-rules.ts), no_data rules (no-data.ts) and
 * alarm timers (alarms.ts).
 */
import type { LastSeenResult } from '../../common/twin-activities';
import { alarmsChecked, alarmsDue } from './alarms';
import { keptCommandsFound } from './commands';
import { type Decision, inTurn } from './effects';
import { deviceChecked, orphanDeadline } from './lifecycle';
import { heardFrom, heartbeatDeadline, heartbeatTimed, silenceChecked } from './liveness';
import { noDataChecked, noDataDue } from './no-data';
import type { TwinState } from './state';
import { holdsDue } from './status-rules';
import type { RunConfig } from './version';

/** What a check-back must read before it can decide. */
export interface CheckBackPlan {
  /** When the timer fired. */
  at: number;
  /** Pins whose last data the due no_data rules need. */
  pins: string[];
  dueRuleIds: string[];
  /** Rules whose alarm timer is due: their alarm and edge state must be read. */
  alarmRuleIds: string[];
}

/** A timer fired: what to read (last-seen times, due no_data pins, due alarms), or null when nothing is due. */
export function planCheckBack(s: TwinState, cfg: RunConfig, now: number): CheckBackPlan | null {
  const heartbeatDue = heartbeatTimed(cfg) && (heartbeatDeadline(s, cfg, now) ?? Infinity) <= now;
  const noData = noDataDue(s, now);
  const orphanDue = (orphanDeadline(s, cfg) ?? Infinity) <= now;
  const alarmRuleIds = alarmsDue(s, now);
  const holdDue = Object.values(s.statusHolds).some((hold) => hold.notifyAt <= now);
  if (!heartbeatDue && noData.ruleIds.length === 0 && !orphanDue && alarmRuleIds.length === 0 && !holdDue) return null;
  return { at: now, pins: noData.pins, dueRuleIds: noData.ruleIds, alarmRuleIds };
}

/**
 * What the read decides: the twin ends when its device stays missing; a silent online device goes
 * offline (else kept commands go out); due holds notify; each due no_data rule fires or re-arms;
 * due alarm timers raise, remind or escalate.
 */
export function checkedBack(s: TwinState, cfg: RunConfig, plan: CheckBackPlan, seen: LastSeenResult, now: number): Decision {
  if (!seen.exists) return { state: deviceChecked(s, cfg, false, now), effects: [] };
  return inTurn(
    heardFrom(deviceChecked(s, cfg, true, now), seen),
    (x) => silenceChecked(x, cfg, plan.at, now),
    (x) => keptCommandsFound(x, seen.pendingCommands),
    (x) => holdsDue(x, now),
    (x) => noDataChecked(x, plan.dueRuleIds, seen, now),
    (x) => alarmsChecked(x, plan.alarmRuleIds, seen.alarms, now),
  );
}

/** The liveness watch ended (the device went silent, is gone, or has kept commands): decided as a heartbeat check-back. */
export function watchEnded(s: TwinState, cfg: RunConfig, seen: LastSeenResult, now: number): Decision {
  return checkedBack(s, cfg, { at: now, pins: [], dueRuleIds: [], alarmRuleIds: [] }, seen, now);
}
