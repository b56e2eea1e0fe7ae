/**
 * The device's info messages (workflows/twin/info.ts), as plain functions: no servers, no Temporal, time passed in.
 * The shell that runs the effects is covered by the integration tests in test/twin/ and the replay test.
 */
import { receiveInfo } from '../../../workflows/twin/info';
import { cfg, iso, started, T0, decide } from './fixtures';

describe('info messages', () => {
  test('info writes only the fields that changed and fit, and its time counts as activity', () => {
    const s = { ...started(), firmwareVersion: '1.0' };
    const received = receiveInfo(s, { firmwareVersion: '1.0', ipAddress: '10.0.0.2', hardwareType: 'x'.repeat(65), at: iso(T0) }, T0);
    expect(received.state).toMatchObject({ ipAddress: '10.0.0.2', hardwareType: null });
    expect(received.step).toEqual({ kind: 'info', changes: { ipAddress: '10.0.0.2' }, at: iso(T0) });
    const decision = decide(received.state, cfg, received.step!);
    expect(decision.effects.map((e) => e.kind)).toEqual(['writeInfo', 'writeStatus', 'flushCommands']);
    expect(decision.state.status).toBe('online');
  });
});
