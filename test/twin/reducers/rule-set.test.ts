/**
 * What the twin watches by (workflows/twin/rule-set.ts, liveness.ts `heartbeatOf`), as plain
 * functions: a loaded rule set moves the rules, the heartbeat and the rules version; a read's
 * newer version asks for a reload; a history from before templates changes nothing.
 */
import { heartbeatOf } from '../../../workflows/twin/liveness';
import { rulesStale, withRuleSet } from '../../../workflows/twin/rule-set';
import { cfg, rule, started, T0 } from './fixtures';

describe('rule sets', () => {
  test('a loaded set brings its rules, the heartbeat it sets and the version it was read at', () => {
    const noData = rule({ condition: 'no_data', duration: 30 });
    const s = withRuleSet(started(), { rules: [noData], heartbeatTimeoutS: 5, rulesVersion: '7' }, T0);
    expect(s).toMatchObject({ rules: [noData], heartbeatTimeoutS: 5, rulesVersion: '7' });
    expect(s.noData[noData.id]).toMatchObject({ armedAt: T0, checkAt: T0 + 30_000 });
    expect(heartbeatOf(s, cfg)).toBe(5);
  });

  test('a set without a heartbeat falls back to the run default; one recorded before templates keeps what the twin held', () => {
    const set = withRuleSet(started(), { rules: [], heartbeatTimeoutS: 5, rulesVersion: '1' }, T0);
    expect(heartbeatOf(withRuleSet(set, { rules: [], heartbeatTimeoutS: null, rulesVersion: '2' }, T0), cfg)).toBe(cfg.heartbeatTimeoutS);
    const old = withRuleSet(set, { rules: [] }, T0);
    expect(old).toMatchObject({ heartbeatTimeoutS: 5, rulesVersion: '1' });
  });

  test('a read with a newer version is stale; no version read (an older history) never is', () => {
    const s = withRuleSet(started(), { rules: [], rulesVersion: '3' }, T0);
    expect(rulesStale(s, '4')).toBe(true);
    expect(rulesStale(s, '3')).toBe(false);
    expect(rulesStale(s, undefined)).toBe(false);
    expect(rulesStale(started(), '0')).toBe(true);
  });
});
