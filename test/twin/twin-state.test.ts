/**
 * The twin's decisions as plain functions (workflows/twin/): no servers, no Temporal, time passed
 * in. Each transition the twin makes has its case here; the workflow shell that runs the effects
 * is covered by the integration tests beside this file and the replay test.
 */
import type { BootstrapResult, LastSeenResult } from '../../common/twin-activities';
import type { AlarmEdgeInput, TwinRule } from '../../common/twin-contracts';
import { alarmNotice, evaluateAlarm, receiveAlarmEdge } from '../../workflows/twin/alarms';
import { type CheckBackPlan, checkedBack, planCheckBack, watchEnded } from '../../workflows/twin/check-back';
import { continueAsNewDue, RUN_MESSAGE_BUDGET } from '../../workflows/twin/continue-as-new';
import { receiveInfo } from '../../workflows/twin/info';
import { bootstrapped, endRequested } from '../../workflows/twin/lifecycle';
import { MIRROR_HEAL_INTERVAL_MS, receiveActivity, receiveStatus, statusWritten, watchWanted } from '../../workflows/twin/liveness';
import { lockFor, lockRequestProblem, lockToRelease, locked, unlocked } from '../../workflows/twin/locks';
import { evaluateNoData, withRules } from '../../workflows/twin/no-data';
import { nextDeadline } from '../../workflows/twin/schedule';
import { freshState, resumeState, type TwinState } from '../../workflows/twin/state';
import { decideStep } from '../../workflows/twin/steps';
import type { RunConfig } from '../../workflows/twin/version';

/** A run before every patch (the heartbeat on a timer), and one with the liveness watch. */
const cfg: RunConfig = {
  deviceId: 'dev-1',
  projectId: 'proj-1',
  heartbeatTimeoutS: 60,
  version: { heartbeatWatch: false, localSteps: false },
};
const watchCfg: RunConfig = { ...cfg, version: { heartbeatWatch: true, localSteps: true } };
const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

const rule = (r: Partial<TwinRule> & Pick<TwinRule, 'condition'>): TwinRule => ({
  id: `rule-${r.condition}-${r.pin ?? 'device'}`,
  pin: null,
  duration: null,
  message: '',
  channels: ['inApp'],
  ...r,
});

const boot = (over: Partial<BootstrapResult> = {}): BootstrapResult => ({
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

const seen = (over: Partial<LastSeenResult> = {}): LastSeenResult => ({
  exists: true,
  lastSeen: null,
  pins: {},
  pendingCommands: 0,
  ...over,
});

/** A bootstrapped twin, offline since T0 - 1 s, with these rules. */
function started(rules: TwinRule[] = []): TwinState {
  return bootstrapped(freshState(), boot({ rules }), T0).state;
}

/** An online twin: came online by activity at `at`. */
function online(rules: TwinRule[] = [], at = T0): TwinState {
  const received = receiveActivity(started(rules), { at: iso(at) }, at);
  if (!received.step) throw new Error('expected a step');
  return decideStep(received.state, cfg, received.step).state;
}

describe('start', () => {
  test('a fresh twin takes the mirror, and writes a status when the mirror has none', () => {
    const quiet = bootstrapped(freshState(), boot(), T0);
    expect(quiet.state).toMatchObject({ bootstrapped: true, status: 'offline', offlineSince: T0 - 1000, missingSince: null });
    expect(quiet.effects).toEqual([]);

    const first = bootstrapped(
      freshState(),
      boot({
        mirror: { ...boot().mirror, status: null, statusChangedAt: null },
        locks: [{ pin: 'V1', lockedAt: iso(T0), widgetId: null }],
      }),
      T0,
    );
    expect(first.effects).toEqual([{ kind: 'writeStatus', firstStatus: true }]);
    expect(first.state).toMatchObject({ status: 'offline', statusChangedAt: iso(T0), locks: { V1: { pin: 'V1' } } });
  });

  test('a mirror that says online without lastSeen starts the heartbeat from its status change', () => {
    const s = bootstrapped(
      freshState(),
      boot({ mirror: { ...boot().mirror, status: 'online', statusChangedAt: iso(T0 - 5000) } }),
      T0,
    ).state;
    expect(s.lastSeen).toBe(iso(T0 - 5000));
    expect(nextDeadline(s, cfg, T0)).toBe(T0 - 5000 + 60_000);
  });

  test('a device hash that does not exist starts the orphan clock', () => {
    const s = bootstrapped(freshState(), boot({ exists: false }), T0).state;
    expect(s.missingSince).toBe(T0);
    expect(nextDeadline(s, cfg, T0)).toBe(T0 + 120_000); // two heartbeats
  });

  test('a run carried by older code gets the newer fields, and each run counts its own messages', () => {
    const { ending: _e, run: _r, ...old } = online();
    const resumed = resumeState({ ...old, stats: { ...old.stats, runs: 3 } });
    expect(resumed).toMatchObject({ status: 'online', ending: null, run: { messages: 0, lastMessageAt: 0 }, stats: { runs: 3 } });
  });
});

describe('online', () => {
  test('activity brings an offline twin online: mirror, then online rules, then kept commands', () => {
    const onlineRule = rule({ condition: 'online', message: 'back {value}' });
    const received = receiveActivity(started([onlineRule, rule({ condition: 'offline' })]), { at: iso(T0), pin: 'v3' }, T0);
    expect(received.step).toEqual({ kind: 'activityAt', at: iso(T0) });
    expect(received.state.pinActivity).toEqual({ V3: iso(T0) });
    const decision = decideStep(received.state, cfg, received.step!);
    expect(decision.state).toMatchObject({ status: 'online', statusChangedAt: iso(T0), lastSeen: iso(T0) });
    expect(decision.effects).toEqual([
      { kind: 'writeStatus' },
      { kind: 'notify', rule: onlineRule, type: 'device_status', title: 'Device online', message: 'back online', priority: 'normal' },
      { kind: 'flushCommands' },
    ]);
  });

  test('activity from before the device went offline does not bring it back', () => {
    const s = started(); // offline since T0 - 1 s
    const received = receiveActivity(s, { at: iso(T0 - 2000) }, T0);
    expect(decideStep(received.state, cfg, received.step!).effects).toEqual([]);
    expect(decideStep(received.state, cfg, received.step!).state.status).toBe('offline');
  });

  test('activity on an online twin is counted and needs no I/O, unless the mirror is due to be healed', () => {
    const s = statusWritten(online(), null, T0);
    const quiet = receiveActivity(s, { at: iso(T0 + 1000) }, T0 + 1000);
    expect(quiet.step).toBeNull();
    expect(quiet.state).toMatchObject({ lastSeen: iso(T0 + 1000), stats: { signals: s.stats.signals + 1 } });
    const heal = receiveActivity(s, { at: iso(T0 + MIRROR_HEAL_INTERVAL_MS) }, T0 + MIRROR_HEAL_INTERVAL_MS);
    expect(heal.step).toEqual({ kind: 'healMirror' });
    expect(decideStep(heal.state, cfg, heal.step!).effects).toEqual([{ kind: 'writeStatus' }]);
    expect(heal.state.mirroredAt).toBe(T0 + MIRROR_HEAL_INTERVAL_MS);
  });

  test('a signal without a valid time is counted and ignored with a warning', () => {
    const received = receiveActivity(started(), { at: 'yesterday' }, T0);
    expect(received).toMatchObject({ step: null, warning: expect.stringContaining('ignored') });
    expect(received.state.stats.signals).toBe(1);
  });
});

describe('offline by heartbeat timeout', () => {
  const offlineRule = rule({ condition: 'offline', message: 'went {value}' });

  test('the deadline is lastSeen + timeout; data seen since re-arms it without a transition', () => {
    const s = online([offlineRule]);
    expect(nextDeadline(s, cfg, T0)).toBe(T0 + 60_000);
    const plan = planCheckBack(s, cfg, T0 + 60_000)!;
    expect(plan).toEqual({ at: T0 + 60_000, pins: [], dueRuleIds: [], alarmRuleIds: [] });
    const rearmed = checkedBack(s, cfg, plan, seen({ lastSeen: iso(T0 + 30_000) }), T0 + 60_000);
    expect(rearmed.effects).toEqual([]);
    expect(nextDeadline(rearmed.state, cfg, T0 + 60_000)).toBe(T0 + 90_000);
  });

  test('no data within the timeout: offline, mirror written, offline rules notified (high priority)', () => {
    const s = online([offlineRule]);
    const plan = planCheckBack(s, cfg, T0 + 60_000)!;
    const decision = checkedBack(s, cfg, plan, seen({ lastSeen: iso(T0) }), T0 + 60_000);
    expect(decision.state).toMatchObject({ status: 'offline', statusChangedAt: iso(T0 + 60_000), offlineSince: T0 + 60_000 });
    expect(decision.effects).toEqual([
      { kind: 'writeStatus' },
      { kind: 'notify', rule: offlineRule, type: 'device_status', title: 'Device offline', message: 'went offline', priority: 'high' },
    ]);
    expect(nextDeadline(decision.state, cfg, T0 + 60_000)).toBeNull();
  });

  test('nothing due: no read at all', () => {
    expect(planCheckBack(online(), cfg, T0 + 59_999)).toBeNull();
    expect(planCheckBack(started(), cfg, T0 + 10_000_000)).toBeNull();
  });
});

describe('reconnect storms: the gateway writes online ahead (docs/architecture.md)', () => {
  const onlineRule = rule({ condition: 'online' });

  test('a signal marked ahead brings the twin online as any activity does; the mirror write confirms', () => {
    const received = receiveActivity(started([onlineRule]), { at: iso(T0), ahead: true }, T0);
    expect(received.step).toEqual({ kind: 'activityAt', at: iso(T0), ahead: true });
    const decision = decideStep(received.state, cfg, received.step!);
    expect(decision.state).toMatchObject({ status: 'online', statusChangedAt: iso(T0) });
    expect(decision.effects.map((e) => e.kind)).toEqual(['writeStatus', 'notify', 'flushCommands']);
  });

  test('a twin that stays offline after a signal marked ahead writes its own status back', () => {
    const received = receiveActivity(started(), { at: iso(T0 - 2000), ahead: true }, T0); // before the device went offline
    const decision = decideStep(received.state, cfg, received.step!);
    expect(decision.state.status).toBe('offline');
    expect(decision.effects).toEqual([{ kind: 'writeStatus' }]);
  });

  test("an offline later than the twin's own is recorded and written (runs after the patch), so older queued activity stays out", () => {
    const s = started(); // offline since T0 - 1 s
    const offline = receiveStatus(s, { status: 'offline', at: iso(T0 + 2000), reason: 'last will' }, T0 + 2000);
    expect(decideStep(offline.state, cfg, offline.step!).effects).toEqual([]); // runs before the patch: unchanged
    const recorded = decideStep(offline.state, watchCfg, offline.step!);
    expect(recorded.state).toMatchObject({
      status: 'offline',
      statusChangedAt: iso(T0 + 2000),
      offlineSince: T0 + 2000,
      disconnectReason: 'last will',
    });
    expect(recorded.effects).toEqual([{ kind: 'writeStatus' }]);
    const late = receiveActivity(recorded.state, { at: iso(T0 + 1000), ahead: true }, T0 + 3000); // queued before the offline
    expect(decideStep(late.state, watchCfg, late.step!)).toMatchObject({
      state: { status: 'offline' },
      effects: [{ kind: 'writeStatus' }],
    });
  });

  test('a fresh twin that finds an online written ahead makes it its own transition', () => {
    const mirror = {
      status: 'online' as const,
      lastSeen: iso(T0),
      statusChangedAt: iso(T0),
      ipAddress: null,
      firmwareVersion: null,
      hardwareType: null,
      statusAhead: true,
    };
    const decision = bootstrapped(freshState(), boot({ mirror, rules: [onlineRule] }), T0 + 100);
    expect(decision.state).toMatchObject({ status: 'online', statusChangedAt: iso(T0), offlineSince: null });
    expect(decision.effects.map((e) => e.kind)).toEqual(['writeStatus', 'notify', 'flushCommands']);
    const confirmed = bootstrapped(freshState(), boot({ mirror: { ...mirror, statusAhead: undefined } }), T0 + 100);
    expect(confirmed.effects).toEqual([]);
  });
});

describe('liveness watch: one Temporal action per heartbeat period', () => {
  test('with the watch, the heartbeat sets no timer; other timers still do', () => {
    const s = online([rule({ condition: 'no_data', duration: 300 })]);
    expect(nextDeadline(s, watchCfg, T0)).toBe(T0 + 300_000);
    expect(nextDeadline(online(), watchCfg, T0)).toBeNull();
    expect(planCheckBack(online(), watchCfg, T0 + 60_000)).toBeNull();
    expect(watchWanted(online())).toBe(true);
    expect(watchWanted(started())).toBe(false);
  });

  test('the watch ends in silence: offline by timeout; with kept commands and recent data: a flush', () => {
    const s = online();
    expect(watchEnded(s, cfg, seen({ lastSeen: iso(T0) }), T0 + 60_000).state).toMatchObject({
      status: 'offline',
      disconnectReason: 'timeout',
    });
    const flush = watchEnded(s, cfg, seen({ lastSeen: iso(T0 + 50_000), pendingCommands: 1 }), T0 + 60_000);
    expect(flush.state.status).toBe('online');
    expect(flush.effects).toEqual([{ kind: 'flushCommands' }]);
    expect(watchEnded(s, cfg, seen({ exists: false }), T0 + 60_000).state.missingSince).toBe(T0 + 60_000);
  });
});

describe('status messages', () => {
  test('online status is activity; offline status moves an online twin offline', () => {
    const up = receiveStatus(started(), { status: 'online', at: iso(T0) }, T0);
    expect(up.step).toEqual({ kind: 'activityAt', at: iso(T0) });
    const on = decideStep(up.state, cfg, up.step!).state;
    const down = receiveStatus(on, { status: 'offline', at: iso(T0 + 5) }, T0 + 5);
    expect(down.step).toEqual({ kind: 'offlineAt', at: iso(T0 + 5), reason: 'status message' });
    const decision = decideStep(down.state, cfg, down.step!);
    expect(decision.state).toMatchObject({ status: 'offline', statusChangedAt: iso(T0 + 5) });
    expect(decision.effects).toEqual([{ kind: 'writeStatus' }]);
  });

  test('an offline status older than the last change, or a repeated one, changes nothing', () => {
    const on = online();
    const stale = receiveStatus(on, { status: 'offline', at: iso(T0 - 10) }, T0);
    expect(decideStep(stale.state, cfg, stale.step!)).toEqual({ state: stale.state, effects: [] });
    const off = started();
    const again = receiveStatus(off, { status: 'offline', at: iso(T0 + 10) }, T0 + 10);
    expect(decideStep(again.state, cfg, again.step!).effects).toEqual([]);
  });

  test('a malformed status is ignored with a warning', () => {
    expect(receiveStatus(started(), { status: 'sleeping' as never, at: iso(T0) }, T0)).toMatchObject({
      step: null,
      warning: expect.any(String),
    });
  });

  test('info writes only the fields that changed and fit, and its time counts as activity', () => {
    const s = { ...started(), firmwareVersion: '1.0' };
    const received = receiveInfo(s, { firmwareVersion: '1.0', ipAddress: '10.0.0.2', hardwareType: 'x'.repeat(65), at: iso(T0) }, T0);
    expect(received.state).toMatchObject({ ipAddress: '10.0.0.2', hardwareType: null });
    expect(received.step).toEqual({ kind: 'info', changes: { ipAddress: '10.0.0.2' }, at: iso(T0) });
    const decision = decideStep(received.state, cfg, received.step!);
    expect(decision.effects.map((e) => e.kind)).toEqual(['writeInfo', 'writeStatus', 'flushCommands']);
    expect(decision.state.status).toBe('online');
  });
});

describe('locks', () => {
  test('locking is idempotent; unlock by another widget keeps the lock, by its own or without one releases it', () => {
    let s = started();
    const lock = lockFor(s, { pin: 'v7', widgetId: 'w1' }, T0);
    expect(lock).toEqual({ pin: 'V7', lockedAt: iso(T0), widgetId: 'w1' });
    s = locked(s, lock);
    expect(lockFor(s, { pin: 'V7', widgetId: null }, T0 + 1)).toBe(lock);
    expect(lockToRelease(s, { pin: 'V7', widgetId: 'w2' })).toBeNull();
    expect(lockToRelease(s, { pin: 'V7', widgetId: 'w1' })).toBe('V7');
    expect(lockToRelease(s, { pin: 'V7' })).toBe('V7');
    s = unlocked(s, 'V7');
    expect(s.locks).toEqual({});
    expect(lockToRelease(s, { pin: 'V7' })).toBeNull();
  });

  test('requests are refused before they touch state: bad pin, bad widget id, an ending twin', () => {
    const s = started();
    expect(lockRequestProblem(s, { pin: 'V256' })).toMatchObject({ code: 'INVALID_PIN' });
    expect(lockRequestProblem(s, { pin: 'X1' })).toMatchObject({ code: 'INVALID_PIN' });
    expect(lockRequestProblem(s, { pin: 'V1', widgetId: 5 as never })).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(lockRequestProblem(s, { pin: 'D99', widgetId: null })).toBeNull();
    expect(lockRequestProblem(endRequested(s), { pin: 'V1' })).toMatchObject({ code: 'DEVICE_NOT_FOUND' });
  });
});

describe('no_data rules', () => {
  const pinRule = rule({ condition: 'no_data', pin: 'V3', duration: 10, message: 'silent, last {value}' });

  test('the timer fires once per silence and re-arms when data returns', () => {
    const armed = { pin: 'V3', durationS: 10, armedAt: T0, silenceSince: null, checkAt: T0 + 10_000 };
    const fired = evaluateNoData(armed, T0 - 5000, T0 + 10_000);
    expect(fired).toEqual({ fires: true, timer: { ...armed, silenceSince: T0, checkAt: T0 + 20_000 } });
    const still = evaluateNoData(fired.timer, T0 - 5000, T0 + 20_000);
    expect(still).toEqual({ fires: false, timer: { ...fired.timer, checkAt: T0 + 30_000 } });
    const back = evaluateNoData(still.timer, T0 + 25_000, T0 + 30_000);
    expect(back).toEqual({ fires: false, timer: { ...armed, silenceSince: null, checkAt: T0 + 35_000 } });
    expect(evaluateNoData(back.timer, T0 + 25_000, T0 + 35_000).fires).toBe(true);
  });

  test('a check-back reads the due pins and notifies with the last value', () => {
    const s = started([pinRule]);
    expect(nextDeadline(s, cfg, T0)).toBe(T0 + 10_000);
    const plan = planCheckBack(s, cfg, T0 + 10_000)!;
    expect(plan).toEqual({ at: T0 + 10_000, pins: ['V3'], dueRuleIds: [pinRule.id], alarmRuleIds: [] });
    const decision = checkedBack(s, cfg, plan, seen({ pins: { V3: { value: '21.5', updatedAt: iso(T0 - 1) } } }), T0 + 10_000);
    expect(decision.effects).toEqual([
      { kind: 'notify', rule: pinRule, type: 'no_data', title: 'No data on V3', message: 'silent, last 21.5', priority: 'high' },
    ]);
    expect(decision.state.pinActivity.V3).toBe(iso(T0 - 1));
    const quiet = checkedBack(decision.state, cfg, planCheckBack(decision.state, cfg, T0 + 20_000)!, seen(), T0 + 20_000);
    expect(quiet.effects).toEqual([]);
  });

  test('a device-wide rule counts any data; its default message names the device', () => {
    const deviceRule = rule({ condition: 'no_data', duration: 5 });
    const s = started([deviceRule]);
    const decision = checkedBack(s, cfg, planCheckBack(s, cfg, T0 + 5000)!, seen(), T0 + 5000);
    expect(decision.effects).toEqual([
      expect.objectContaining({ title: 'No data from device', message: 'No data from the device for 5 s' }),
    ]);
  });

  test('a rule reload keeps running timers of unchanged rules and arms new or changed ones', () => {
    const s = started([pinRule]);
    const kept = withRules(s, [pinRule], T0 + 3000);
    expect(kept.noData[pinRule.id]).toBe(s.noData[pinRule.id]);
    const changed = withRules(s, [{ ...pinRule, duration: 20 }], T0 + 3000);
    expect(changed.noData[pinRule.id]).toMatchObject({ armedAt: T0 + 3000, checkAt: T0 + 23_000 });
    expect(withRules(s, [], T0 + 3000).noData).toEqual({});
  });
});

describe('command flush ordering', () => {
  test('kept commands go out after the online mirror write and the online notifications', () => {
    const decision = decideStep(started([rule({ condition: 'online' })]), cfg, { kind: 'activityAt', at: iso(T0) });
    expect(decision.effects.map((e) => e.kind)).toEqual(['writeStatus', 'notify', 'flushCommands']);
  });

  test('an online twin whose check-back finds kept commands flushes them, without a status change', () => {
    const s = online();
    const plan = planCheckBack(s, cfg, T0 + 60_000)!;
    const decision = checkedBack(s, cfg, plan, seen({ lastSeen: iso(T0 + 50_000), pendingCommands: 2 }), T0 + 60_000);
    expect(decision.effects).toEqual([{ kind: 'flushCommands' }]);
    expect(decision.state.status).toBe('online');
  });

  test('an offline twin never flushes on a check-back', () => {
    const s = started([rule({ condition: 'no_data', duration: 1 })]);
    const decision = checkedBack(s, cfg, planCheckBack(s, cfg, T0 + 1000)!, seen({ pendingCommands: 3 }), T0 + 1000);
    expect(decision.effects.map((e) => e.kind)).toEqual(['notify']);
  });
});

describe('orphans and ending', () => {
  test('a device hash missing for the grace period ends the twin', () => {
    const s = online();
    const plan: CheckBackPlan = planCheckBack(s, cfg, T0 + 60_000)!;
    const first = checkedBack(s, cfg, plan, seen({ exists: false }), T0 + 60_000);
    expect(first.state).toMatchObject({ missingSince: T0 + 60_000, ending: null });
    expect(nextDeadline(first.state, cfg, T0 + 60_000)).toBe(T0 + 180_000);
    const last = checkedBack(first.state, cfg, planCheckBack(first.state, cfg, T0 + 180_000)!, seen({ exists: false }), T0 + 180_000);
    expect(last.state.ending).toBe('device-missing');
    const back = checkedBack(first.state, cfg, plan, seen(), T0 + 70_000);
    expect(back.state.missingSince).toBeNull();
  });

  test('end is kept once asked', () => {
    expect(endRequested(started()).ending).toBe('ended');
    expect(endRequested({ ...started(), ending: 'device-missing' }).ending).toBe('device-missing');
  });
});

describe('history budget', () => {
  test('continue-as-new when Temporal suggests it or a budget is spent', () => {
    const s = started();
    expect(continueAsNewDue(s, { continueAsNewSuggested: false, historyLength: 10 })).toBe(false);
    expect(continueAsNewDue(s, { continueAsNewSuggested: true, historyLength: 10 })).toBe(true);
    expect(continueAsNewDue(s, { continueAsNewSuggested: false, historyLength: 10_001 })).toBe(true);
    const busy = { ...s, run: { messages: RUN_MESSAGE_BUDGET + 1, lastMessageAt: T0 } };
    expect(continueAsNewDue(busy, { continueAsNewSuggested: false, historyLength: 10 })).toBe(true);
  });
});

describe('alarms', () => {
  const edge = (over: Partial<AlarmEdgeInput> = {}): AlarmEdgeInput => ({
    edgeId: `edge-${over.edge ?? 'raise'}-${over.at ?? iso(T0)}`,
    edge: 'raise',
    ruleId: 'rule-hot',
    pin: 'V5',
    value: '31',
    at: iso(T0),
    severity: 'major',
    forSeconds: 0,
    renotifySeconds: null,
    escalate: null,
    channels: ['inApp'],
    title: 'Threshold: V5 gt 30',
    message: 'hot 31',
    notified: true,
    ...over,
  });
  /** Receives an edge at `now` and decides it, as the shell does. */
  function apply(s: TwinState, e: AlarmEdgeInput, now = T0) {
    const received = receiveAlarmEdge(s, e, now);
    return received.step ? decideStep(received.state, cfg, received.step) : { state: received.state, effects: [] };
  }
  const reading = (over: Partial<{ inside: boolean; active: boolean; acknowledged: boolean }> = {}) => ({
    inside: true,
    active: true,
    acknowledged: false,
    ...over,
  });
  /** A check-back at `now` with these alarm readings. */
  function checkAt(s: TwinState, now: number, alarms: Record<string, ReturnType<typeof reading>>) {
    const plan = planCheckBack(s, cfg, now);
    if (!plan) return null;
    return checkedBack(s, cfg, plan, seen({ alarms }), now);
  }

  test('a raise without forSeconds records the alarm at once; the gateway already notified', () => {
    const raised = apply(started(), edge());
    expect(raised.effects).toEqual([{ kind: 'raiseAlarm', edge: edge() }]);
    expect(raised.state.alarms).toEqual({}); // no reminders: nothing to time
    expect(nextDeadline(raised.state, cfg, T0)).toBeNull();
  });

  test('a repeated or older edge is ignored (the outbox delivers at least once, in no fixed order)', () => {
    const first = apply(started(), edge());
    expect(receiveAlarmEdge(first.state, edge(), T0).step).toBeNull();
    const cleared = apply(first.state, edge({ edge: 'clear', at: iso(T0 + 2000) }), T0 + 2000);
    expect(cleared.effects.map((e) => e.kind)).toEqual(['clearAlarm']);
    expect(receiveAlarmEdge(cleared.state, edge({ edgeId: 'late-raise', at: iso(T0 + 1000) }), T0 + 3000).step).toBeNull();
    expect(receiveAlarmEdge(started(), { edge: 'raise' } as Partial<AlarmEdgeInput>, T0)).toMatchObject({
      step: null,
      warning: expect.any(String),
    });
  });

  test('forSeconds: a short spike is cancelled by its clear edge and never raises', () => {
    const pending = apply(started(), edge({ forSeconds: 10, notified: false }));
    expect(pending.effects).toEqual([]);
    expect(pending.state.alarms['rule-hot']).toMatchObject({ phase: 'pending', raiseAt: T0 + 10_000 });
    expect(nextDeadline(pending.state, cfg, T0)).toBe(T0 + 10_000);
    const back = apply(pending.state, edge({ edge: 'clear', at: iso(T0 + 3000), forSeconds: 10 }), T0 + 3000);
    expect(back.effects).toEqual([]);
    expect(back.state.alarms).toEqual({});
    expect(nextDeadline(back.state, cfg, T0 + 3000)).toBeNull();
  });

  test('forSeconds: a condition that holds raises at the deadline, with its notification', () => {
    const e = edge({ forSeconds: 10, notified: false, renotifySeconds: 60 });
    const pending = apply(started(), e).state;
    expect(checkAt(pending, T0 + 9999, {})).toBeNull();
    const plan = planCheckBack(pending, cfg, T0 + 10_000)!;
    expect(plan.alarmRuleIds).toEqual(['rule-hot']);
    const raised = checkAt(pending, T0 + 10_000, { 'rule-hot': reading() })!;
    expect(raised.effects).toEqual([{ kind: 'raiseAlarm', edge: e }, alarmNotice(e, 'raised')]);
    expect(raised.state.alarms['rule-hot']).toMatchObject({ phase: 'active', renotifyAt: T0 + 70_000 });
  });

  test('forSeconds: a pending raise whose clear edge has not arrived yet checks the edge state', () => {
    const pending = apply(started(), edge({ forSeconds: 10, notified: false })).state;
    const cancelled = checkAt(pending, T0 + 10_000, { 'rule-hot': reading({ inside: false }) })!;
    expect(cancelled.effects).toEqual([]);
    expect(cancelled.state.alarms).toEqual({});
  });

  test('re-notify at its period and escalate once, until acknowledged', () => {
    const e = edge({ renotifySeconds: 2, escalate: { afterSeconds: 3, channels: ['email'] } });
    let s = apply(started(), e).state;
    expect(nextDeadline(s, cfg, T0)).toBe(T0 + 2000);
    const first = checkAt(s, T0 + 2000, { 'rule-hot': reading() })!;
    expect(first.effects).toEqual([alarmNotice(e, 'still active')]);
    expect(first.effects[0]).toMatchObject({ title: 'Threshold: V5 gt 30 (still active)', priority: 'high' });
    s = first.state;
    expect(nextDeadline(s, cfg, T0 + 2000)).toBe(T0 + 3000);
    const escalated = checkAt(s, T0 + 3000, { 'rule-hot': reading() })!;
    expect(escalated.effects).toEqual([alarmNotice(e, 'escalated')]);
    expect(escalated.effects[0]).toMatchObject({ rule: { id: 'rule-hot', channels: ['inApp', 'email'] } });
    s = escalated.state;
    const again = checkAt(s, T0 + 4000, { 'rule-hot': reading() })!;
    expect(again.effects.map((x) => (x.kind === 'notify' ? x.title : x.kind))).toEqual(['Threshold: V5 gt 30 (still active)']);
    const acked = checkAt(again.state, T0 + 6000, { 'rule-hot': reading({ acknowledged: true }) })!;
    expect(acked.effects).toEqual([]);
    expect(acked.state.alarms).toEqual({});
    expect(nextDeadline(acked.state, cfg, T0 + 6000)).toBeNull();
  });

  test('a cleared (or deleted) alarm stops reminding; a clear edge clears the record', () => {
    const e = edge({ renotifySeconds: 2 });
    const s = apply(started(), e).state;
    expect(evaluateAlarm(s.alarms['rule-hot']!, reading({ active: false }), T0 + 2000)).toEqual({ timer: null, effects: [] });
    expect(evaluateAlarm(s.alarms['rule-hot']!, null, T0 + 2000)).toEqual({ timer: null, effects: [] });
    const cleared = apply(s, edge({ edge: 'clear', at: iso(T0 + 1000) }), T0 + 1000);
    expect(cleared.effects).toEqual([{ kind: 'clearAlarm', edge: edge({ edge: 'clear', at: iso(T0 + 1000) }) }]);
    expect(cleared.state.alarms).toEqual({});
  });

  test('a raise while the alarm is active updates it at once, whatever forSeconds says', () => {
    const e = edge({ forSeconds: 5, notified: false, renotifySeconds: 60 });
    const raised = checkAt(apply(started(), e).state, T0 + 5000, { 'rule-hot': reading() })!.state;
    const again = apply(raised, edge({ ...e, edgeId: 'second', at: iso(T0 + 6000), value: '35' }), T0 + 6000);
    expect(again.effects.map((x) => x.kind)).toEqual(['raiseAlarm', 'notify']);
  });

  test('alarm timers survive continue-as-new, and older runs start without any', () => {
    const s = apply(started(), edge({ renotifySeconds: 5 })).state;
    expect(resumeState(s).alarms['rule-hot']).toMatchObject({ phase: 'active', renotifyAt: T0 + 5000 });
    const { alarms: _a, alarmEdges: _e, ...old } = s;
    expect(resumeState(old)).toMatchObject({ alarms: {}, alarmEdges: {} });
  });
});

describe('status without flapping', () => {
  const offlineFor = rule({ condition: 'offline', forSeconds: 10, message: 'gone {value}' });
  const onlineFor = rule({ condition: 'online', forSeconds: 5 });

  test('an offline rule with forSeconds notifies only if the device stays offline that long', () => {
    const on = online([offlineFor]);
    const down = receiveStatus(on, { status: 'offline', at: iso(T0 + 1000) }, T0 + 1000);
    const decision = decideStep(down.state, cfg, down.step!);
    expect(decision.effects).toEqual([{ kind: 'writeStatus' }]);
    expect(nextDeadline(decision.state, cfg, T0 + 1000)).toBe(T0 + 11_000);
    const held = checkedBack(decision.state, cfg, planCheckBack(decision.state, cfg, T0 + 11_000)!, seen(), T0 + 11_000);
    expect(held.effects).toEqual([
      { kind: 'notify', rule: offlineFor, type: 'device_status', title: 'Device offline', message: 'gone offline', priority: 'high' },
    ]);
    expect(nextDeadline(held.state, cfg, T0 + 11_000)).toBeNull();
  });

  test('a device back within forSeconds notifies nobody, either way', () => {
    const on = online([offlineFor, onlineFor]);
    const down = decideStep(on, cfg, { kind: 'offlineAt', at: iso(T0 + 1000), reason: 'last will' }).state;
    const back = decideStep(down, cfg, { kind: 'activityAt', at: iso(T0 + 3000) });
    expect(back.effects.map((e) => e.kind)).toEqual(['writeStatus', 'flushCommands']);
    expect(Object.keys(back.state.statusHolds)).toEqual([onlineFor.id]);
    const downAgain = decideStep(back.state, cfg, { kind: 'offlineAt', at: iso(T0 + 4000) }).state;
    expect(Object.keys(downAgain.statusHolds)).toEqual([offlineFor.id]);
    const plan = planCheckBack(downAgain, cfg, T0 + 8000);
    expect(plan).toBeNull(); // the online hold was cancelled; the offline one is due at T0 + 14 s
  });

  test('the disconnect reason: status message, last will, or heartbeat timeout; cleared when back online', () => {
    const on = online();
    const will = receiveStatus(on, { status: 'offline', at: iso(T0 + 5), reason: 'last will' }, T0 + 5);
    expect(decideStep(will.state, cfg, will.step!).state.disconnectReason).toBe('last will');
    const said = receiveStatus(on, { status: 'offline', at: iso(T0 + 5) }, T0 + 5);
    expect(decideStep(said.state, cfg, said.step!).state.disconnectReason).toBe('status message');
    const timedOut = checkedBack(on, cfg, planCheckBack(on, cfg, T0 + 60_000)!, seen({ lastSeen: iso(T0) }), T0 + 60_000).state;
    expect(timedOut.disconnectReason).toBe('timeout');
    expect(decideStep(timedOut, cfg, { kind: 'activityAt', at: iso(T0 + 61_000) }).state.disconnectReason).toBeNull();
  });
});
