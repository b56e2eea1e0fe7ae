/**
 * Pin locks (workflows/twin/locks.ts), as plain functions: no servers, no Temporal, time passed in.
 * The shell that runs the effects is covered by the integration tests in test/twin/ and the replay test.
 */
import { endRequested } from '../../../workflows/twin/lifecycle';
import {
  lockFor,
  lockRequested,
  lockRequestProblem,
  lockToRelease,
  locked,
  unlockRequested,
  unlocked,
} from '../../../workflows/twin/locks';
import { iso, started, T0 } from './fixtures';

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

  test('an Update is counted and asks for its mirror write; the state holds the lock only once it is written', () => {
    const s = started();
    const lock = lockRequested(s, { pin: 'v2', widgetId: null }, T0);
    expect(lock.answer).toEqual({ pin: 'V2', lockedAt: iso(T0), widgetId: null });
    expect(lock.effects).toEqual([{ kind: 'writeLock', lock: lock.answer }]);
    expect(lock.state).toMatchObject({ locks: {}, stats: { updates: 1 }, run: { messages: 1, lastMessageAt: T0 } });
    const held = locked(lock.state, lock.answer);
    expect(unlockRequested(held, { pin: 'V2', widgetId: 'other' }, T0 + 1)).toMatchObject({ effects: [], answer: { released: false } });
    const release = unlockRequested(held, { pin: 'V2' }, T0 + 1);
    expect(release).toMatchObject({
      effects: [{ kind: 'deleteLock', pin: 'V2' }],
      answer: { released: true },
      state: { stats: { updates: 2 } },
    });
  });
});
