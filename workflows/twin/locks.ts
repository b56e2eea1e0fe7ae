/**
 * Pin locks (DESIGN §5): the twin holds each pin's lock and mirrors it to Redis, where the
 * gateway refuses writes to a locked pin. Lock and unlock are Updates: the caller waits for the
 * mirror write, and the state changes only once it is written.
 */
import type { PinLock } from '../../common/contracts';
import { isoOf } from '../../common/iso-time';
import type { LockInput, UnlockInput, UnlockResult } from '../../common/twin-contracts';
import type { Decision } from './effects';
import { canonicalPin } from './pin-name';
import { counted, type TwinState } from './state';

/** Why a lock or unlock request is refused before it touches state, or null when it is fine. */
export function lockRequestProblem(
  s: TwinState,
  req: Partial<UnlockInput> | undefined,
): { code: 'DEVICE_NOT_FOUND' | 'INVALID_PIN' | 'VALIDATION_ERROR'; message: string } | null {
  if (s.ending !== null) return { code: 'DEVICE_NOT_FOUND', message: 'the twin is ending' };
  if (canonicalPin(req?.pin) === null) return { code: 'INVALID_PIN', message: `invalid pin: ${String(req?.pin)}` };
  const widgetId: unknown = req?.widgetId;
  if (widgetId !== null && widgetId !== undefined && typeof widgetId !== 'string') {
    return { code: 'VALIDATION_ERROR', message: 'widgetId must be a string or null' };
  }
  return null;
}

/** The lock a request leads to: the pin's lock when it has one (locking is idempotent), else a new one. */
export function lockFor(s: TwinState, req: LockInput, now: number): PinLock {
  const pin = canonicalPin(req.pin) ?? req.pin;
  return s.locks[pin] ?? { pin, lockedAt: isoOf(now), widgetId: req.widgetId ?? null };
}

/** The pin whose lock a request releases, or null: no lock, or one held by another widget. */
export function lockToRelease(s: TwinState, req: UnlockInput): string | null {
  const pin = canonicalPin(req.pin) ?? req.pin;
  const lock = s.locks[pin];
  if (!lock) return null;
  if (req.widgetId !== undefined && req.widgetId !== null && lock.widgetId !== req.widgetId) return null;
  return pin;
}

/** The `lock` Update: the lock is written (which also heals a mirror that lost it); `answer` is what the caller gets. */
export function lockRequested(s: TwinState, req: LockInput, now: number): Decision & { answer: PinLock } {
  const lock = lockFor(s, req, now);
  return { state: counted(s, 'updates', now), effects: [{ kind: 'writeLock', lock }], answer: lock };
}

/** The `unlock` Update: a lock it releases is removed; none, and nothing is written. */
export function unlockRequested(s: TwinState, req: UnlockInput, now: number): Decision & { answer: UnlockResult } {
  const state = counted(s, 'updates', now);
  const pin = lockToRelease(state, req);
  return pin === null
    ? { state, effects: [], answer: { released: false } }
    : { state, effects: [{ kind: 'deleteLock', pin }], answer: { released: true } };
}

export function locked(s: TwinState, lock: PinLock): TwinState {
  return { ...s, locks: { ...s.locks, [lock.pin]: lock } };
}

export function unlocked(s: TwinState, pin: string): TwinState {
  const { [pin]: _released, ...locks } = s.locks;
  return { ...s, locks };
}
