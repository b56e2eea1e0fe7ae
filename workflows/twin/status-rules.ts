/**
 * offline and online rules (docs/alarms.md "status without flapping"): a status change notifies
 * the rules of the new status at once, or, for a rule with forSeconds, holds its notification
 * until the device has stayed so that long. The change itself is liveness.ts's.
 */
import type { DeviceStatus } from '../../common/contracts';
import { msOf } from '../../common/iso-time';
import type { TwinRule } from '../../common/twin-contracts';
import type { Decision, TwinEffect } from './effects';
import type { StatusHold, TwinState } from './state';

function statusNotice(rule: TwinRule, status: DeviceStatus): TwinEffect {
  return {
    kind: 'notify',
    rule,
    type: 'device_status',
    title: `Device ${status}`,
    message: rule.message ? rule.message.replaceAll('{value}', status) : `Device is ${status}`,
    priority: status === 'offline' ? 'high' : 'normal',
  };
}

/**
 * The rules of a change to `status` at `at`: their notifications now, and the holds of those with
 * forSeconds. The holds replace those of the other status, so a device that flaps back within
 * forSeconds notifies nobody.
 */
export function statusRulesOn(
  rules: TwinRule[],
  status: DeviceStatus,
  at: string,
): { holds: Record<string, StatusHold>; effects: TwinEffect[] } {
  const holds: Record<string, StatusHold> = {};
  const effects: TwinEffect[] = [];
  for (const rule of rules) {
    if (rule.condition !== status) continue;
    if (rule.forSeconds) holds[rule.id] = { status, since: at, notifyAt: (msOf(at) ?? 0) + rule.forSeconds * 1000 };
    else effects.push(statusNotice(rule, status));
  }
  return { holds, effects };
}

/**
 * The `statusRules` effect of a change to `status` at `at` (liveness.ts `transition`), decided with
 * the rules the twin holds when it runs: nothing when the device has changed status again since.
 */
export function statusRulesApplied(s: TwinState, status: DeviceStatus, at: string): Decision {
  if (s.status !== status) return { state: s, effects: [] };
  const { holds, effects } = statusRulesOn(s.rules, status, at);
  return { state: { ...s, statusHolds: holds }, effects };
}

/** Holds due at `now`: notified if the device is still in that status (and the rule still watched). */
export function holdsDue(s: TwinState, now: number): Decision {
  const due = Object.entries(s.statusHolds).filter(([, hold]) => hold.notifyAt <= now);
  if (due.length === 0) return { state: s, effects: [] };
  const statusHolds = { ...s.statusHolds };
  const effects: TwinEffect[] = [];
  for (const [ruleId, hold] of due) {
    delete statusHolds[ruleId];
    const rule = s.rules.find((r) => r.id === ruleId && r.condition === hold.status);
    if (rule && s.status === hold.status) effects.push(statusNotice(rule, hold.status));
  }
  return { state: { ...s, statusHolds }, effects };
}

/** When the next hold is due (epoch ms), or null. */
export function nextHoldAt(s: TwinState): number | null {
  const times = Object.values(s.statusHolds).map((hold) => hold.notifyAt);
  return times.length === 0 ? null : Math.min(...times);
}
