/**
 * no_data rules (DESIGN §8): a rule fires once per silence of its pin (or of the whole device)
 * longer than its duration, and re-arms when data comes back. Each rule has a timer in the state;
 * a check-back reads the due pins' last data (schedule.ts) and hands it here.
 */
import { msOf } from '../../common/iso-time';
import type { LastSeenResult } from '../../common/twin-activities';
import type { TwinRule } from '../../common/twin-contracts';
import type { Decision, TwinEffect } from './effects';
import type { NoDataTimer, TwinState } from './state';

/** New rules: no_data timers of unchanged rules keep running, new or changed ones arm at `now`. */
export function withRules(s: TwinState, rules: TwinRule[], now: number): TwinState {
  const noData: Record<string, NoDataTimer> = {};
  for (const rule of rules) {
    if (rule.condition !== 'no_data' || rule.duration === null) continue;
    const old = s.noData[rule.id];
    noData[rule.id] =
      old && old.pin === rule.pin && old.durationS === rule.duration
        ? old
        : { pin: rule.pin, durationS: rule.duration, armedAt: now, silenceSince: null, checkAt: now + rule.duration * 1000 };
  }
  return { ...s, rules, noData };
}

/** The rules whose timer is due at `now`, and the pins whose last data they need. */
export function noDataDue(s: TwinState, now: number): { ruleIds: string[]; pins: string[] } {
  const due = Object.entries(s.noData).filter(([, timer]) => timer.checkAt <= now);
  return {
    ruleIds: due.map(([ruleId]) => ruleId),
    pins: [...new Set(due.flatMap(([, timer]) => (timer.pin ? [timer.pin] : [])))],
  };
}

/** When the next no_data timer is due (epoch ms), or null. */
export function nextNoDataAt(s: TwinState): number | null {
  const times = Object.values(s.noData).map((timer) => timer.checkAt);
  return times.length === 0 ? null : Math.min(...times);
}

/** A no_data rule's timer after a check at `now`; `fires` once per silence, re-armed by data after it. */
export function evaluateNoData(timer: NoDataTimer, lastData: number | null, now: number): { timer: NoDataTimer; fires: boolean } {
  const durationMs = timer.durationS * 1000;
  const rearmed = timer.silenceSince !== null && lastData !== null && lastData > timer.silenceSince;
  const silenceSince = rearmed ? null : timer.silenceSince;
  if (silenceSince !== null) return { timer: { ...timer, checkAt: now + durationMs }, fires: false }; // still silent: look again later
  const since = Math.max(lastData ?? Number.NEGATIVE_INFINITY, timer.armedAt);
  if (now - since >= durationMs) return { timer: { ...timer, silenceSince: since, checkAt: now + durationMs }, fires: true };
  return { timer: { ...timer, silenceSince: null, checkAt: since + durationMs }, fires: false };
}

function noDataNotice(rule: TwinRule, value: string): TwinEffect {
  return {
    kind: 'notify',
    rule,
    type: 'no_data',
    title: rule.pin ? `No data on ${rule.pin}` : 'No data from device',
    message: rule.message ? rule.message.replaceAll('{value}', value) : `No data from ${rule.pin ?? 'the device'} for ${rule.duration} s`,
    priority: 'high',
  };
}

/** The due rules (`ruleIds`) after a read: each fires (a notification with the pin's last value) or re-arms. */
export function noDataChecked(s: TwinState, ruleIds: string[], seen: LastSeenResult, now: number): Decision {
  const noData = { ...s.noData };
  const effects: TwinEffect[] = [];
  for (const ruleId of ruleIds) {
    const timer = noData[ruleId];
    if (!timer) continue;
    const data = timer.pin ? seen.pins[timer.pin] : null;
    const lastData = timer.pin ? msOf(data?.updatedAt) : msOf(seen.lastSeen);
    const result = evaluateNoData(timer, lastData, now);
    noData[ruleId] = result.timer;
    const rule = result.fires ? s.rules.find((r) => r.id === ruleId) : undefined;
    if (rule) effects.push(noDataNotice(rule, rule.pin ? (data?.value ?? 'no value') : 'no value'));
  }
  return { state: { ...s, noData }, effects };
}
