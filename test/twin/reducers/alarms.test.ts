/**
 * Threshold alarms (workflows/twin/alarms.ts), as plain functions: no servers, no Temporal, time passed in.
 * The shell that runs the effects is covered by the integration tests in test/twin/ and the replay test.
 */
import type { AlarmEdgeInput } from '../../../common/twin-contracts';
import { alarmNotice, evaluateAlarm, receiveAlarmEdge } from '../../../workflows/twin/alarms';
import { checkedBack, planCheckBack } from '../../../workflows/twin/check-back';
import { nextDeadline } from '../../../workflows/twin/schedule';
import { resumeState, type TwinState } from '../../../workflows/twin/state';
import { decideStep } from '../../../workflows/twin/steps';
import { cfg, iso, seen, started, T0 } from './fixtures';

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
