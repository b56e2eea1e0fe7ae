/**
 * When a device is online and when it goes offline (DESIGN §6): the one home of that rule.
 *
 * - Online from its `online` status or any message at a time after its last offline (activity from
 *   before the twin's own offline does not bring it back).
 * - Offline on its `offline` status or Last Will (unless older than the last change), or when no
 *   message came within its heartbeat timeout: the deadline is the last time it was heard from
 *   plus the timeout (common/liveness.ts, which the liveness watch activity shares).
 * - Each change is written to the mirror first (writeStatus), then the status rules of the new
 *   status are notified (status-rules.ts), then, online, kept commands go out (commands.ts).
 *
 * The gateway and Redis follow this rule without deciding it: the gateway shows `online` ahead
 * of the twin and tells it (gateway/temporal/status-ahead.ts, store/lua/write-status-ahead-4.lua);
 * a value from a device the mirror does not show online wakes the twin (the wake marker,
 * store/lua/store-point-13.lua); the twin's write confirms or corrects the mirror
 * (store/lua/write-status-4.lua); the outbox relay waits for that confirmation
 * (gateway/outbox/twin-confirmed.ts); the liveness watch waits out the heartbeat deadline
 * (activities/mirror.ts `awaitSilence`).
 */
import type { DeviceStatus, DisconnectReason } from '../../common/contracts';
import { isoOf, isTime, later, msOf } from '../../common/iso-time';
import { heartbeatTimeoutOf, silenceDeadline } from '../../common/liveness';
import type { LastSeenResult } from '../../common/twin-activities';
import type { ActivityInput, StatusInput } from '../../common/twin-contracts';
import { FLUSH_KEPT } from './commands';
import { type Decision, type Received, type TwinEffect, unchanged } from './effects';
import { canonicalPin } from './pin-name';
import { counted, type TwinState } from './state';
import type { RunConfig } from './version';

/** An activity signal while the twin already thinks online means the mirror disagrees: rewrite it, at most this often. */
export const MIRROR_HEAL_INTERVAL_MS = 10_000;

const WRITE_STATUS: TwinEffect = { kind: 'writeStatus' };

/** The device was heard from at `at`: lastSeen moves forward. */
export const heardAt = (s: TwinState, at: string): TwinState => ({ ...s, lastSeen: later(s.lastSeen, at) });

/**
 * online ⇄ offline: the mirror write, then the matching status rules' notifications (or holds,
 * which replace those of the other status: status-rules.ts), then (online) kept commands.
 */
export function transition(s: TwinState, status: DeviceStatus, at: string, reason: DisconnectReason | null = null): Decision {
  if (s.status === status) return unchanged(s);
  const next: TwinState = {
    ...s,
    status,
    statusChangedAt: at,
    disconnectReason: status === 'offline' ? reason : null,
    statusHolds: {},
    lastSeen: status === 'online' ? later(s.lastSeen, at) : s.lastSeen,
    offlineSince: status === 'offline' ? msOf(at) : s.offlineSince,
  };
  return { state: next, effects: [WRITE_STATUS, { kind: 'statusRules', status, at }, ...(status === 'online' ? [FLUSH_KEPT] : [])] };
}

// ---- Messages ------------------------------------------------------------------------------------

/**
 * `activity`: a message from a device the gateway's mirror shows offline. An offline twin decides
 * whether it comes online when the step's turn comes; an online one means the mirror disagrees
 * with the twin, so it is rewritten (at most every MIRROR_HEAL_INTERVAL_MS).
 */
export function receiveActivity(s0: TwinState, input: Partial<ActivityInput> | undefined, now: number): Received {
  const s = counted(s0, 'signals', now);
  if (!isTime(input?.at)) return { state: s, step: null, warning: 'activity signal without a valid time ignored' };
  const at = input.at;
  let next = heardAt(s, at);
  const pin = canonicalPin(input.pin);
  if (pin) next = { ...next, pinActivity: { ...next.pinActivity, [pin]: later(next.pinActivity[pin] ?? null, at) ?? at } };
  if (next.status === 'offline')
    return { state: next, step: input.ahead ? { kind: 'activityAt', at, ahead: true } : { kind: 'activityAt', at } };
  if (next.bootstrapped && now - next.mirroredAt >= MIRROR_HEAL_INTERVAL_MS) {
    return { state: { ...next, mirroredAt: now }, step: { kind: 'healMirror' } };
  }
  return { state: next, step: null };
}

/** `status`: the device's status topic or Last Will. An `online` is activity. */
export function receiveStatus(s0: TwinState, input: Partial<StatusInput> | undefined, now: number): Received {
  const s = counted(s0, 'signals', now);
  if ((input?.status !== 'online' && input?.status !== 'offline') || !isTime(input.at)) {
    return { state: s, step: null, warning: 'status signal with a bad payload ignored' };
  }
  if (input.status === 'online') return { state: heardAt(s, input.at), step: { kind: 'activityAt', at: input.at } };
  return { state: s, step: { kind: 'offlineAt', at: input.at, reason: input.reason === 'last will' ? 'last will' : 'status message' } };
}

// ---- Steps: decided when their turn in the twin's queue comes ------------------------------------

/** Activity at `at` brings an offline device online, unless it predates the device going offline. */
export function activityAt(s: TwinState, at: string): Decision {
  if (s.status === 'online') return unchanged(s);
  const atMs = msOf(at);
  if (atMs === null || (s.offlineSince !== null && atMs <= s.offlineSince)) return unchanged(s);
  return transition(s, 'online', at);
}

/** An activity step; `ahead`: the gateway may have written the mirror online, so a twin that stays offline puts its own status back. */
export function activityStep(s: TwinState, at: string, ahead: boolean): Decision {
  const decision = activityAt(s, at);
  if (ahead && decision.state.status !== 'online') return { state: decision.state, effects: [...decision.effects, WRITE_STATUS] };
  return decision;
}

/**
 * An `offline` status or Last Will at `at`. Older than the last change: nothing. Runs with the
 * liveness watch (whose gateway writes `online` ahead) record an offline later than the twin's own
 * offline and write it, so activity from before it, queued in the outbox, does not bring the
 * device back and an `online` written ahead of that activity is put right.
 */
export function offlineAt(s: TwinState, cfg: RunConfig, at: string, reason: Exclude<DisconnectReason, 'timeout'>): Decision {
  const statusAt = msOf(s.statusChangedAt);
  if (statusAt !== null && (msOf(at) ?? 0) < statusAt) return unchanged(s);
  if (cfg.version.heartbeatWatch && s.status === 'offline') {
    return { state: { ...s, statusChangedAt: at, offlineSince: msOf(at), disconnectReason: reason }, effects: [WRITE_STATUS] };
  }
  return transition(s, 'offline', at, reason);
}

/** The mirror showed the device offline while the twin has it online: rewrite it. */
export const healMirror = (s: TwinState): Decision => ({ state: s, effects: [WRITE_STATUS] });

/** The mirror was written; it may have moved lastSeen further (the gateway writes it too). */
export function statusWritten(s: TwinState, mirrorLastSeen: string | null, now: number): TwinState {
  return { ...s, mirroredAt: now, lastSeen: mirrorLastSeen ? later(s.lastSeen, mirrorLastSeen) : s.lastSeen };
}

// ---- The heartbeat -------------------------------------------------------------------------------

/** The device's heartbeat timeout: its own or its template's as last loaded, else the run's default. */
export const heartbeatOf = (s: TwinState, cfg: RunConfig): number => heartbeatTimeoutOf(s.heartbeatTimeoutS, cfg.heartbeatTimeoutS);

/** When an online device goes offline by silence (epoch ms), or null when it is not online. */
export function heartbeatDeadline(s: TwinState, cfg: RunConfig, now: number): number | null {
  if (s.status !== 'online') return null;
  return silenceDeadline(msOf(s.lastSeen) ?? msOf(s.statusChangedAt) ?? now, heartbeatOf(s, cfg));
}

/** Whether the heartbeat needs a check-back timer: not in runs where the liveness watch times it. */
export const heartbeatTimed = (cfg: RunConfig): boolean => !cfg.version.heartbeatWatch;

/** Whether a run with the liveness watch needs one running: online, its device there, not ending. */
export function watchWanted(s: TwinState): boolean {
  return s.bootstrapped && s.status === 'online' && s.missingSince === null && s.ending === null;
}

/**
 * Whether a running liveness watch, started at `watchedAtS` of heartbeat, must start again: the
 * heartbeat as now loaded is shorter, so its deadline comes before the one the watch waits for.
 * A longer one needs nothing: the watch reads the heartbeat again at that deadline.
 */
export function watchOutdated(s: TwinState, cfg: RunConfig, watchedAtS: number): boolean {
  return cfg.version.heartbeatRewatch && heartbeatOf(s, cfg) < watchedAtS;
}

/** What a read of the mirror says of activity: lastSeen and each pin's last data move forward. */
export function heardFrom(s: TwinState, seen: LastSeenResult): TwinState {
  const pinActivity = { ...s.pinActivity };
  for (const [pin, data] of Object.entries(seen.pins)) {
    if (data) pinActivity[pin] = later(pinActivity[pin] ?? null, data.updatedAt) ?? data.updatedAt;
  }
  return { ...s, lastSeen: later(s.lastSeen, seen.lastSeen), pinActivity };
}

/**
 * After a read: an online device not heard from within its heartbeat timeout goes offline now
 * (reason `timeout`). `readAt` stands for its last activity when the twin knows none.
 */
export function silenceChecked(s: TwinState, cfg: RunConfig, readAt: number, now: number): Decision {
  if (s.status !== 'online') return unchanged(s);
  if (now < silenceDeadline(msOf(s.lastSeen) ?? readAt, heartbeatOf(s, cfg))) return unchanged(s);
  return transition(s, 'offline', isoOf(now), 'timeout');
}
