/**
 * offline and online rules (workflows/twin/status-rules.ts), as plain functions: no servers, no Temporal, time passed in.
 * The shell that runs the effects is covered by the integration tests in test/twin/ and the replay test.
 */
import { checkedBack, planCheckBack } from '../../../workflows/twin/check-back';
import { receiveStatus } from '../../../workflows/twin/liveness';
import { nextDeadline } from '../../../workflows/twin/schedule';
import { cfg, iso, online, rule, seen, T0, decide } from './fixtures';

describe('status without flapping', () => {
  const offlineFor = rule({ condition: 'offline', forSeconds: 10, message: 'gone {value}' });
  const onlineFor = rule({ condition: 'online', forSeconds: 5 });

  test('an offline rule with forSeconds notifies only if the device stays offline that long', () => {
    const on = online([offlineFor]);
    const down = receiveStatus(on, { status: 'offline', at: iso(T0 + 1000) }, T0 + 1000);
    const decision = decide(down.state, cfg, down.step!);
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
    const down = decide(on, cfg, { kind: 'offlineAt', at: iso(T0 + 1000), reason: 'last will' }).state;
    const back = decide(down, cfg, { kind: 'activityAt', at: iso(T0 + 3000) });
    expect(back.effects.map((e) => e.kind)).toEqual(['writeStatus', 'flushCommands']);
    expect(Object.keys(back.state.statusHolds)).toEqual([onlineFor.id]);
    const downAgain = decide(back.state, cfg, { kind: 'offlineAt', at: iso(T0 + 4000) }).state;
    expect(Object.keys(downAgain.statusHolds)).toEqual([offlineFor.id]);
    const plan = planCheckBack(downAgain, cfg, T0 + 8000);
    expect(plan).toBeNull(); // the online hold was cancelled; the offline one is due at T0 + 14 s
  });
});
