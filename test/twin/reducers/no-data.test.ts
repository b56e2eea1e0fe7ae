/**
 * no_data rules (workflows/twin/no-data.ts), as plain functions: no servers, no Temporal, time passed in.
 * The shell that runs the effects is covered by the integration tests in test/twin/ and the replay test.
 */
import { checkedBack, planCheckBack } from '../../../workflows/twin/check-back';
import { evaluateNoData, withRules } from '../../../workflows/twin/no-data';
import { nextDeadline } from '../../../workflows/twin/schedule';
import { cfg, iso, rule, seen, started, T0 } from './fixtures';

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
