/**
 * Kept commands going out (workflows/twin/commands.ts), as plain functions: no servers, no Temporal, time passed in.
 * The shell that runs the effects is covered by the integration tests in test/twin/ and the replay test.
 */
import { checkedBack, planCheckBack } from '../../../workflows/twin/check-back';
import { cfg, iso, online, rule, seen, started, T0, decide } from './fixtures';

describe('command flush ordering', () => {
  test('kept commands go out after the online mirror write and the online notifications', () => {
    const decision = decide(started([rule({ condition: 'online' })]), cfg, { kind: 'activityAt', at: iso(T0) });
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
