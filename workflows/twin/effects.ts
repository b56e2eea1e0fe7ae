/**
 * What the reducers hand the shell: the new state and the I/O to run (effects), and, for a message,
 * the step it queues behind the twin's running steps. The shell (device-twin.ts)
 * runs effects in order, one at a time.
 */
import type { DeviceStatus, NotificationPriority, NotificationType, PinLock, DisconnectReason } from '../../common/contracts';
import type { DeviceInfoFields } from '../../common/device-info';
import type { AlarmEdgeInput, TwinRule } from '../../common/twin-contracts';
import type { TwinState } from './state';

/** Whom a notification is for: the rule it comes from and its channels. */
export type NotifyTarget = Pick<TwinRule, 'id' | 'channels'>;

/** I/O the shell runs, in order, one at a time. */
export type TwinEffect =
  /**
   * Write status, statusChangedAt and lastSeen, as the state holds them when it runs, to the mirror.
   * `firstStatus`: the status of a device whose mirror had none at the twin's start, written only
   * while it still has none (an `online` the gateway wrote ahead since stays: its signal is queued).
   */
  | { kind: 'writeStatus'; firstStatus?: true }
  /**
   * Notify (or hold) the rules of a change to `status` at `at`, decided when it runs: after the
   * status write, which may have found newer rules to load first (status-rules.ts, rule-set.ts).
   */
  | { kind: 'statusRules'; status: DeviceStatus; at: string }
  | { kind: 'notify'; rule: NotifyTarget; type: NotificationType; title: string; message: string; priority: NotificationPriority }
  /** Deliver the commands kept for the device while it was not online. */
  | { kind: 'flushCommands' }
  | { kind: 'writeInfo'; changes: DeviceInfoFields }
  /** Raise (or update, when active) the rule's alarm record and emit `alarm`; idempotent per edge. */
  | { kind: 'raiseAlarm'; edge: AlarmEdgeInput }
  /** Clear the rule's alarm record, if it is active, and emit `alarm`. */
  | { kind: 'clearAlarm'; edge: AlarmEdgeInput }
  /** Mirror a lock (and drop commands kept for its pin); the state holds it once written. */
  | { kind: 'writeLock'; lock: PinLock }
  /** Remove a lock from the mirror; the state lets it go once removed. */
  | { kind: 'deleteLock'; pin: string };

export interface Decision {
  state: TwinState;
  effects: TwinEffect[];
}

/** Work a message queues behind the twin's running steps: decided when its turn comes (steps.ts). */
export type TwinStep =
  | { kind: 'activityAt'; at: string; ahead?: boolean }
  | { kind: 'offlineAt'; at: string; reason?: Exclude<DisconnectReason, 'timeout'> }
  | { kind: 'healMirror' }
  | { kind: 'info'; changes: DeviceInfoFields; at: string | null }
  | { kind: 'alarmEdge'; edge: AlarmEdgeInput; now: number };

/** What a handler learnt from a message: the new state, the step to queue, and why it was ignored. */
export interface Received {
  state: TwinState;
  step: TwinStep | null;
  warning?: string;
}

export const unchanged = (state: TwinState): Decision => ({ state, effects: [] });

/** Runs reducers one after another on the state, their effects in that order. */
export function inTurn(s: TwinState, ...reducers: Array<(s: TwinState) => Decision>): Decision {
  return reducers.reduce<Decision>((done, reducer) => {
    const next = reducer(done.state);
    return { state: next.state, effects: [...done.effects, ...next.effects] };
  }, unchanged(s));
}
