/**
 * What the twin watches by (docs/architecture.md "Fleet rules"): the rules that cover its device
 * (its own, its template's, its tags', its project's), its heartbeat as set, and the project rules
 * version they were loaded at. A scoped rule change bumps the version and tells no twin; each twin
 * reads the version with the reads it makes anyway (a check-back, the liveness watch, a status
 * write) and loads again before it decides when the version moved. A no_data rule, whose timer
 * must run from now, reaches its twins through the fleet catch-up (a rules-changed Update).
 */
import type { RuleSetFields } from '../../common/twin-activities';
import type { TwinRule } from '../../common/twin-contracts';
import { withRules } from './no-data';
import type { TwinState } from './state';

/** A loaded rule set in the state; fields absent (histories from before templates) keep what the state holds. */
export function withRuleSet(s: TwinState, set: { rules: TwinRule[] } & RuleSetFields, now: number): TwinState {
  const next = withRules(s, set.rules, now);
  return {
    ...next,
    heartbeatTimeoutS: set.heartbeatTimeoutS !== undefined ? set.heartbeatTimeoutS : next.heartbeatTimeoutS,
    rulesVersion: set.rulesVersion ?? next.rulesVersion,
  };
}

/** Whether a read's rules version says the twin's rules are older than the project's (no version read: no). */
export function rulesStale(s: TwinState, version: string | undefined): boolean {
  return version !== undefined && version !== s.rulesVersion;
}
