/**
 * How a twin starts and ends (workflows/twin/lifecycle.ts), as plain functions: no servers, no Temporal, time passed in.
 * The shell that runs the effects is covered by the integration tests in test/twin/ and the replay test.
 */
import { checkedBack, planCheckBack, type CheckBackPlan } from '../../../workflows/twin/check-back';
import { bootstrapped, endRequested } from '../../../workflows/twin/lifecycle';
import { nextDeadline } from '../../../workflows/twin/schedule';
import { freshState, resumeState } from '../../../workflows/twin/state';
import { boot, cfg, iso, online, seen, started, T0 } from './fixtures';

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
