/** What the reducer tests build twins from: a config per version, a start time, rules, reads. */
import type { BootstrapResult, LastSeenResult } from '../../../common/twin-activities';
import type { TwinRule } from '../../../common/twin-contracts';
import { bootstrapped } from '../../../workflows/twin/lifecycle';
import { receiveActivity } from '../../../workflows/twin/liveness';
import { freshState, type TwinState } from '../../../workflows/twin/state';
import type { Decision, TwinEffect, TwinStep } from '../../../workflows/twin/effects';
import { statusRulesApplied } from '../../../workflows/twin/status-rules';
import { decideStep } from '../../../workflows/twin/steps';
import type { RunConfig } from '../../../workflows/twin/version';

/** A run before every patch (the heartbeat on a timer). */
export const cfg: RunConfig = {
  deviceId: 'dev-1',
  projectId: 'proj-1',
  heartbeatTimeoutS: 60,
  version: { heartbeatWatch: false, localSteps: false, heartbeatRewatch: false, rewatchAtOnce: false },
};
/** A run with every patch (the liveness watch times the heartbeat). */
export const watchCfg: RunConfig = {
  ...cfg,
  version: { heartbeatWatch: true, localSteps: true, heartbeatRewatch: true, rewatchAtOnce: true },
};

export const T0 = Date.parse('2026-11-23T12:00:00.000Z');
export const iso = (ms: number): string => new Date(ms).toISOString();

export const rule = (r: Partial<TwinRule> & Pick<TwinRule, 'condition'>): TwinRule => ({
  id: `rule-${r.condition}-${r.pin ?? 'device'}`,
  pin: null,
  duration: null,
  message: '',
  channels: ['inApp'],
  ...r,
});

/** What bootstrapTwin reads: a device offline since T0 - 1 s. */
export const boot = (over: Partial<BootstrapResult> = {}): BootstrapResult => ({
  exists: true,
  mirror: {
    status: 'offline',
    lastSeen: null,
    statusChangedAt: iso(T0 - 1000),
    ipAddress: null,
    firmwareVersion: null,
    hardwareType: null,
  },
  locks: [],
  rules: [],
  ...over,
});

/** What readLastSeen reads: the device there, nothing since. */
export const seen = (over: Partial<LastSeenResult> = {}): LastSeenResult => ({
  exists: true,
  lastSeen: null,
  pins: {},
  pendingCommands: 0,
  ...over,
});

/** A bootstrapped twin, offline since T0 - 1 s, with these rules. */
export function started(rules: TwinRule[] = []): TwinState {
  return bootstrapped(freshState(), boot({ rules }), T0).state;
}

/** An online twin: came online by activity at `at`. */
export function online(rules: TwinRule[] = [], at = T0): TwinState {
  const received = receiveActivity(started(rules), { at: iso(at) }, at);
  if (!received.step) throw new Error('expected a step');
  return asRun(decideStep(received.state, cfg, received.step)).state;
}

/** A decision as the shell runs it: each statusRules effect replaced by what it decides then (the status rules' notifications and holds). */
export function asRun(d: Decision): Decision {
  let state = d.state;
  const effects: TwinEffect[] = [];
  for (const effect of d.effects) {
    if (effect.kind !== 'statusRules') {
      effects.push(effect);
      continue;
    }
    const applied = statusRulesApplied(state, effect.status, effect.at);
    state = applied.state;
    effects.push(...applied.effects);
  }
  return { state, effects };
}

/** decideStep, as the shell runs it (asRun). */
export const decide = (s: TwinState, c: RunConfig, step: TwinStep): Decision => asRun(decideStep(s, c, step));
