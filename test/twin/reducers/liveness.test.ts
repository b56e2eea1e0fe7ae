/**
 * When a device is online and when it goes offline (workflows/twin/liveness.ts), as plain functions: no servers, no Temporal, time passed in.
 * The shell that runs the effects is covered by the integration tests in test/twin/ and the replay test.
 */
import { checkedBack, planCheckBack, watchEnded } from '../../../workflows/twin/check-back';
import { bootstrapped } from '../../../workflows/twin/lifecycle';
import {
  MIRROR_HEAL_INTERVAL_MS,
  receiveActivity,
  receiveStatus,
  statusWritten,
  watchOutdated,
  watchWanted,
} from '../../../workflows/twin/liveness';
import { nextDeadline } from '../../../workflows/twin/schedule';
import { freshState } from '../../../workflows/twin/state';
import { boot, cfg, iso, online, rule, seen, started, T0, watchCfg, asRun, decide } from './fixtures';

describe('online', () => {
  test('activity brings an offline twin online: mirror, then online rules, then kept commands', () => {
    const onlineRule = rule({ condition: 'online', message: 'back {value}' });
    const received = receiveActivity(started([onlineRule, rule({ condition: 'offline' })]), { at: iso(T0), pin: 'v3' }, T0);
    expect(received.step).toEqual({ kind: 'activityAt', at: iso(T0) });
    expect(received.state.pinActivity).toEqual({ V3: iso(T0) });
    const decision = decide(received.state, cfg, received.step!);
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
    expect(decide(received.state, cfg, received.step!).effects).toEqual([]);
    expect(decide(received.state, cfg, received.step!).state.status).toBe('offline');
  });

  test('activity on an online twin is counted and needs no I/O, unless the mirror is due to be healed', () => {
    const s = statusWritten(online(), null, T0);
    const quiet = receiveActivity(s, { at: iso(T0 + 1000) }, T0 + 1000);
    expect(quiet.step).toBeNull();
    expect(quiet.state).toMatchObject({ lastSeen: iso(T0 + 1000), stats: { signals: s.stats.signals + 1 } });
    const heal = receiveActivity(s, { at: iso(T0 + MIRROR_HEAL_INTERVAL_MS) }, T0 + MIRROR_HEAL_INTERVAL_MS);
    expect(heal.step).toEqual({ kind: 'healMirror' });
    expect(decide(heal.state, cfg, heal.step!).effects).toEqual([{ kind: 'writeStatus' }]);
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
    const decision = asRun(checkedBack(s, cfg, plan, seen({ lastSeen: iso(T0) }), T0 + 60_000));
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
    const decision = decide(received.state, cfg, received.step!);
    expect(decision.state).toMatchObject({ status: 'online', statusChangedAt: iso(T0) });
    expect(decision.effects.map((e) => e.kind)).toEqual(['writeStatus', 'notify', 'flushCommands']);
  });

  test('a twin that stays offline after a signal marked ahead writes its own status back', () => {
    const received = receiveActivity(started(), { at: iso(T0 - 2000), ahead: true }, T0); // before the device went offline
    const decision = decide(received.state, cfg, received.step!);
    expect(decision.state.status).toBe('offline');
    expect(decision.effects).toEqual([{ kind: 'writeStatus' }]);
  });

  test("an offline later than the twin's own is recorded and written (runs after the patch), so older queued activity stays out", () => {
    const s = started(); // offline since T0 - 1 s
    const offline = receiveStatus(s, { status: 'offline', at: iso(T0 + 2000), reason: 'last will' }, T0 + 2000);
    expect(decide(offline.state, cfg, offline.step!).effects).toEqual([]); // runs before the patch: unchanged
    const recorded = decide(offline.state, watchCfg, offline.step!);
    expect(recorded.state).toMatchObject({
      status: 'offline',
      statusChangedAt: iso(T0 + 2000),
      offlineSince: T0 + 2000,
      disconnectReason: 'last will',
    });
    expect(recorded.effects).toEqual([{ kind: 'writeStatus' }]);
    const late = receiveActivity(recorded.state, { at: iso(T0 + 1000), ahead: true }, T0 + 3000); // queued before the offline
    expect(decide(late.state, watchCfg, late.step!)).toMatchObject({
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
    const decision = asRun(bootstrapped(freshState(), boot({ mirror, rules: [onlineRule] }), T0 + 100));
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

  test('a watch started at a longer heartbeat than the one now loaded starts again; at a shorter or the same one, not', () => {
    const s = { ...online(), heartbeatTimeoutS: 5 };
    expect(watchOutdated(s, watchCfg, 3600)).toBe(true);
    expect(watchOutdated(s, watchCfg, 5)).toBe(false);
    expect(watchOutdated({ ...s, heartbeatTimeoutS: 7200 }, watchCfg, 3600)).toBe(false);
    // No heartbeat of its own or its template's: the run's default (60 s here).
    expect(watchOutdated({ ...s, heartbeatTimeoutS: null }, watchCfg, 3600)).toBe(true);
    // Runs before the patch wait out the old deadline.
    expect(watchOutdated(s, { ...watchCfg, version: { ...watchCfg.version, heartbeatRewatch: false } }, 3600)).toBe(false);
  });
});

describe('status messages', () => {
  test('online status is activity; offline status moves an online twin offline', () => {
    const up = receiveStatus(started(), { status: 'online', at: iso(T0) }, T0);
    expect(up.step).toEqual({ kind: 'activityAt', at: iso(T0) });
    const on = decide(up.state, cfg, up.step!).state;
    const down = receiveStatus(on, { status: 'offline', at: iso(T0 + 5) }, T0 + 5);
    expect(down.step).toEqual({ kind: 'offlineAt', at: iso(T0 + 5), reason: 'status message' });
    const decision = decide(down.state, cfg, down.step!);
    expect(decision.state).toMatchObject({ status: 'offline', statusChangedAt: iso(T0 + 5) });
    expect(decision.effects).toEqual([{ kind: 'writeStatus' }]);
  });

  test('an offline status older than the last change, or a repeated one, changes nothing', () => {
    const on = online();
    const stale = receiveStatus(on, { status: 'offline', at: iso(T0 - 10) }, T0);
    expect(decide(stale.state, cfg, stale.step!)).toEqual({ state: stale.state, effects: [] });
    const off = started();
    const again = receiveStatus(off, { status: 'offline', at: iso(T0 + 10) }, T0 + 10);
    expect(decide(again.state, cfg, again.step!).effects).toEqual([]);
  });

  test('a malformed status is ignored with a warning', () => {
    expect(receiveStatus(started(), { status: 'sleeping' as never, at: iso(T0) }, T0)).toMatchObject({
      step: null,
      warning: expect.any(String),
    });
  });

  test('the disconnect reason: status message, last will, or heartbeat timeout; cleared when back online', () => {
    const on = online();
    const will = receiveStatus(on, { status: 'offline', at: iso(T0 + 5), reason: 'last will' }, T0 + 5);
    expect(decide(will.state, cfg, will.step!).state.disconnectReason).toBe('last will');
    const said = receiveStatus(on, { status: 'offline', at: iso(T0 + 5) }, T0 + 5);
    expect(decide(said.state, cfg, said.step!).state.disconnectReason).toBe('status message');
    const timedOut = checkedBack(on, cfg, planCheckBack(on, cfg, T0 + 60_000)!, seen({ lastSeen: iso(T0) }), T0 + 60_000).state;
    expect(timedOut.disconnectReason).toBe('timeout');
    expect(decide(timedOut, cfg, { kind: 'activityAt', at: iso(T0 + 61_000) }).state.disconnectReason).toBeNull();
  });
});
