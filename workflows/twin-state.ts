/**
 * The twin's decisions, as plain functions: state and an event in, new state and effects out.
 * No Temporal, no I/O, no clock (every function is given `now`), nothing mutated in place, so
 * each transition is unit-tested without servers (test/twin/twin-state.test.ts). The workflow
 * (device-twin.ts) is the shell that feeds events in, runs the effects through activities and
 * child workflows one at a time, sleeps until `nextDeadline`, and continues-as-new.
 */
import type { AlarmReading, BootstrapResult, LastSeenResult, TwinRule } from '../activities/types';
import type {
  AlarmEscalation,
  AlarmSeverity,
  DeviceStatus,
  DisconnectReason,
  NotificationChannel,
  NotificationPriority,
  NotificationType,
  PinLock,
} from '../common/contracts';
import { INFO_FIELDS, infoFieldValue, type DeviceInfoFields } from '../common/device-info';
import { parsePin } from '../common/pins';

// ---- Messages --------------------------------------------------------------------------------

/** The gateway saw a message from a device the mirror shows offline (deduplicated). */
export interface ActivityInput {
  /** When the message arrived (ISO 8601). */
  at: string;
  /** The pin it was for, if any. */
  pin?: string;
  /** The gateway showed the device online ahead of the twin (docs/architecture.md "Reconnect storms"). */
  ahead?: boolean;
}

/** The device's status topic or its Last Will. */
export interface StatusInput {
  status: DeviceStatus;
  at: string;
  /** For `offline`: whether the device said so itself or its Last Will did (absent: a status message). */
  reason?: Exclude<DisconnectReason, 'timeout'>;
}

/** The device's info topic. Absent fields stay as they were; `at`, when given, also counts as activity. */
export interface InfoInput extends DeviceInfoFields {
  at?: string;
}

export interface LockInput {
  pin: string;
  widgetId: string | null;
}

export interface UnlockInput {
  pin: string;
  /** When given, only a lock held by this widget is released; when absent or null, any lock is. */
  widgetId?: string | null;
}

/**
 * A threshold rule's alarm state flipped on the ingest path (an outbox intent, one per edge, never
 * one per value): `raise` when a value entered the condition, `clear` when one crossed back past
 * the clear threshold (docs/alarms.md). Carries the rule's alarm settings as they were then.
 */
export interface AlarmEdgeInput {
  /** Unique per edge: a repeated hand-off of the same edge is ignored. */
  edgeId: string;
  edge: 'raise' | 'clear';
  ruleId: string;
  pin: string;
  value: string;
  /** When the value that made the edge was measured (ISO 8601). */
  at: string;
  severity: AlarmSeverity;
  forSeconds: number;
  renotifySeconds: number | null;
  escalate: AlarmEscalation | null;
  channels: NotificationChannel[];
  title: string;
  message: string;
  /** The gateway already wrote this raise's notification to the outbox (rules without forSeconds). */
  notified: boolean;
}

// ---- State -----------------------------------------------------------------------------------

export interface NoDataTimer {
  pin: string | null;
  durationS: number;
  /** Silence is counted from the later of this and the pin's last data (the rule's start). */
  armedAt: number;
  /** Set while the rule has fired for the current silence: the reference time the silence began. */
  silenceSince: number | null;
  /** Next check-back (epoch ms). */
  checkAt: number;
}

/** An alarm the twin is timing: waiting out forSeconds, or raised and reminding (re-notify, escalation). */
export interface AlarmTimer {
  /** The raise edge it belongs to. */
  edge: AlarmEdgeInput;
  phase: 'pending' | 'active';
  /** Epoch ms: pending raises then, if the value is still inside. */
  raiseAt: number | null;
  renotifyAt: number | null;
  escalateAt: number | null;
}

/** A status rule with forSeconds waiting for the device to stay that way (docs/alarms.md). */
export interface StatusHold {
  status: DeviceStatus;
  /** The status change it waits on (ISO 8601): the notification's `{value}` time. */
  since: string;
  notifyAt: number;
}

export type EndReason = 'ended' | 'device-missing';

export interface TwinState {
  bootstrapped: boolean;
  status: DeviceStatus;
  lastSeen: string | null;
  statusChangedAt: string | null;
  /** Why the device last went offline; null while online (or never known). */
  disconnectReason: DisconnectReason | null;
  /** By rule id: offline/online rules with forSeconds whose notification waits for the status to hold. */
  statusHolds: Record<string, StatusHold>;
  /** Epoch ms of the last online→offline change: activity from before it does not bring the device back. */
  offlineSince: number | null;
  ipAddress: string | null;
  firmwareVersion: string | null;
  hardwareType: string | null;
  locks: Record<string, PinLock>;
  /** Last activity per pin, as far as the twin learnt it (signals and check-backs). */
  pinActivity: Record<string, string>;
  rules: TwinRule[];
  /** By rule id. */
  noData: Record<string, NoDataTimer>;
  /** By rule id: alarms with a timer running (only those; a raised alarm without reminders has none). */
  alarms: Record<string, AlarmTimer>;
  /** By rule id: the last alarm edge applied, so a repeated or older hand-off is ignored. */
  alarmEdges: Record<string, { id: string; at: number }>;
  /** Epoch ms of the last status mirror write. */
  mirroredAt: number;
  /** Epoch ms since when `device:{id}` has been missing, or null. */
  missingSince: number | null;
  stats: { signals: number; updates: number; notifications: number; commandsDelivered: number; runs: number };
  /** Why the twin is ending, once it is. */
  ending: EndReason | null;
  /** This run's messages (signals and Updates) and when the last came: the continue-as-new budget is per run. */
  run: { messages: number; lastMessageAt: number };
}

/** What a twin is, fixed for its life. */
export interface TwinConfig {
  deviceId: string;
  projectId: string;
  heartbeatTimeoutS: number;
}

// ---- Effects ---------------------------------------------------------------------------------

/** I/O the shell runs, in order, one at a time. */
export type TwinEffect =
  /**
   * Write status, statusChangedAt and lastSeen, as the state holds them when it runs, to the mirror.
   * `firstStatus`: the status of a device whose mirror had none at the twin's start, written only
   * while it still has none (an `online` the gateway wrote ahead since stays: its signal is queued).
   */
  | { kind: 'writeStatus'; firstStatus?: true }
  | { kind: 'notify'; rule: NotifyTarget; type: NotificationType; title: string; message: string; priority: NotificationPriority }
  /** Deliver the commands kept for the device while it was not online. */
  | { kind: 'flushCommands' }
  | { kind: 'writeInfo'; changes: DeviceInfoFields }
  /** Raise (or update, when active) the rule's alarm record and emit `alarm`; idempotent per edge. */
  | { kind: 'raiseAlarm'; edge: AlarmEdgeInput }
  /** Clear the rule's alarm record, if it is active, and emit `alarm`. */
  | { kind: 'clearAlarm'; edge: AlarmEdgeInput };

/** Whom a notification is for: the rule it comes from and its channels. */
export type NotifyTarget = Pick<TwinRule, 'id' | 'channels'>;

export interface Decision {
  state: TwinState;
  effects: TwinEffect[];
}

/** Work a message queues behind the twin's running steps: decided when its turn comes. */
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

/** What a check-back must read before it can decide. */
export interface CheckBackPlan {
  /** When the timer fired. */
  at: number;
  /** Pins whose last data the due no_data rules need. */
  pins: string[];
  dueRuleIds: string[];
  /** Rules whose alarm timer is due: their alarm and edge state must be read. */
  alarmRuleIds: string[];
}

// ---- Tunables --------------------------------------------------------------------------------

/** Continue-as-new at this history length even if Temporal has not suggested it yet. */
export const HISTORY_EVENT_BUDGET = 10_000;
/** ...or after this many messages (signals and Updates) in one run: short runs replay fast. */
export const RUN_MESSAGE_BUDGET = 2_000;
/**
 * Continue-as-new fails when a message lands while it is being committed (the server makes the
 * run take the message first, from a full replay). So once due, it waits for a lull of this long
 * without messages, unless the run nears Temporal's refusal of signals (10,000 per run).
 */
export const CONTINUE_AS_NEW_LULL_MS = 300;
export const RUN_MESSAGE_HARD_LIMIT = 4_000;
/** A device hash missing this many heartbeat timeouts (at least 5 s) ends the twin: its delete's `end` was lost. */
const ORPHAN_GRACE_HEARTBEATS = 2;
const ORPHAN_GRACE_MIN_MS = 5_000;
/** An activity signal while the twin already thinks online means the mirror disagrees: rewrite it, at most this often. */
export const MIRROR_HEAL_INTERVAL_MS = 10_000;

// ---- Time helpers ----------------------------------------------------------------------------

export const isoOf = (ms: number): string => new Date(ms).toISOString();
export const msOf = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
};
const isTime = (v: unknown): v is string => typeof v === 'string' && msOf(v) !== null;
/** The later of two ISO times (a null or unparsable one loses). */
export const later = (a: string | null, b: string | null): string | null => {
  const am = msOf(a);
  const bm = msOf(b);
  if (bm === null) return am === null ? null : a;
  if (am === null) return b;
  return bm > am ? b : a;
};

const timeoutMs = (cfg: TwinConfig): number => cfg.heartbeatTimeoutS * 1000;
const orphanGraceMs = (cfg: TwinConfig): number => Math.max(ORPHAN_GRACE_HEARTBEATS * timeoutMs(cfg), ORPHAN_GRACE_MIN_MS);

// ---- Building and resuming -------------------------------------------------------------------

export function freshState(): TwinState {
  return {
    bootstrapped: false,
    status: 'offline',
    lastSeen: null,
    statusChangedAt: null,
    disconnectReason: null,
    statusHolds: {},
    offlineSince: null,
    ipAddress: null,
    firmwareVersion: null,
    hardwareType: null,
    locks: {},
    pinActivity: {},
    rules: [],
    noData: {},
    alarms: {},
    alarmEdges: {},
    mirroredAt: 0,
    missingSince: null,
    stats: { signals: 0, updates: 0, notifications: 0, commandsDelivered: 0, runs: 1 },
    ending: null,
    run: { messages: 0, lastMessageAt: 0 },
  };
}

/**
 * The state a run starts from: fresh, or what the previous run carried through continue-as-new.
 * Runs carried by older code lack the newer fields; the run counters start again each run.
 */
export function resumeState(carried: Partial<TwinState> | undefined): TwinState {
  if (!carried) return freshState();
  return { ...freshState(), ...carried, ending: null, run: { messages: 0, lastMessageAt: 0 } };
}

/** The state carried to the next run. */
export function carryOver(s: TwinState): TwinState {
  return { ...s, stats: { ...s.stats, runs: s.stats.runs + 1 } };
}

/** A pin name in canonical form, or null when it is not a pin. */
export function canonicalPin(pin: unknown): string | null {
  return typeof pin === 'string' ? (parsePin(pin)?.name ?? null) : null;
}

// ---- Rules -----------------------------------------------------------------------------------

/** New rules: no_data timers of unchanged rules keep running, new or changed ones arm at `now`. */
export function withRules(s: TwinState, rules: TwinRule[], now: number): TwinState {
  const noData: Record<string, NoDataTimer> = {};
  for (const rule of rules) {
    if (rule.condition !== 'no_data' || rule.duration === null) continue;
    const old = s.noData[rule.id];
    noData[rule.id] =
      old && old.pin === rule.pin && old.durationS === rule.duration
        ? old
        : { pin: rule.pin, durationS: rule.duration, armedAt: now, silenceSince: null, checkAt: now + rule.duration * 1000 };
  }
  return { ...s, rules, noData };
}

// ---- Start -----------------------------------------------------------------------------------

/**
 * A twin starting fresh takes what the mirror holds; a device without a status gets one written.
 * An `online` the gateway wrote ahead (`statusAhead`) is not the twin's yet: the twin makes it its
 * own transition (mirror confirmed, online rules, kept commands), as the signal behind it would have.
 */
export function bootstrapped(s: TwinState, boot: BootstrapResult, now: number): Decision {
  const m = boot.mirror;
  const ahead = m.status === 'online' && m.statusAhead === true;
  const status = ahead ? 'offline' : (m.status ?? 'offline');
  let lastSeen = later(s.lastSeen, m.lastSeen);
  if (status === 'online' && lastSeen === null) lastSeen = m.statusChangedAt ?? isoOf(now);
  let next: TwinState = {
    ...s,
    bootstrapped: true,
    missingSince: boot.exists ? s.missingSince : now,
    status,
    statusChangedAt: m.statusChangedAt,
    lastSeen,
    offlineSince: status === 'offline' ? msOf(m.statusChangedAt) : s.offlineSince,
    ipAddress: m.ipAddress,
    firmwareVersion: m.firmwareVersion,
    hardwareType: m.hardwareType,
    locks: Object.fromEntries(boot.locks.map((l) => [l.pin, l])),
  };
  next = withRules(next, boot.rules, now);
  if (boot.exists && ahead) return transition({ ...next, offlineSince: null }, 'online', m.statusChangedAt ?? isoOf(now));
  if (boot.exists && m.status === null) {
    return { state: { ...next, statusChangedAt: isoOf(now) }, effects: [{ kind: 'writeStatus', firstStatus: true }] };
  }
  return { state: next, effects: [] };
}

/** The mirror was written; it may have moved lastSeen further (the gateway writes it too). */
export function statusWritten(s: TwinState, mirrorLastSeen: string | null, now: number): TwinState {
  return { ...s, mirroredAt: now, lastSeen: mirrorLastSeen ? later(s.lastSeen, mirrorLastSeen) : s.lastSeen };
}

export function commandsFlushed(s: TwinState, delivered: number): TwinState {
  return { ...s, stats: { ...s.stats, commandsDelivered: s.stats.commandsDelivered + delivered } };
}

export function notified(s: TwinState): TwinState {
  return { ...s, stats: { ...s.stats, notifications: s.stats.notifications + 1 } };
}

// ---- Messages --------------------------------------------------------------------------------

/** Counts a signal or Update toward this run's budget. */
function counted(s: TwinState, kind: 'signals' | 'updates', now: number): TwinState {
  return {
    ...s,
    stats: { ...s.stats, [kind]: s.stats[kind] + 1 },
    run: { messages: s.run.messages + 1, lastMessageAt: now },
  };
}

const seenAt = (s: TwinState, at: string): TwinState => ({ ...s, lastSeen: later(s.lastSeen, at) });

/**
 * Activity from a device the gateway's mirror shows offline. An offline twin decides whether it
 * comes online; an online one means the mirror disagrees with the twin, so it is rewritten (at
 * most every MIRROR_HEAL_INTERVAL_MS).
 */
export function receiveActivity(s0: TwinState, input: Partial<ActivityInput> | undefined, now: number): Received {
  const s = counted(s0, 'signals', now);
  if (!isTime(input?.at)) return { state: s, step: null, warning: 'activity signal without a valid time ignored' };
  const at = input.at;
  let next = seenAt(s, at);
  const pin = canonicalPin(input.pin);
  if (pin) next = { ...next, pinActivity: { ...next.pinActivity, [pin]: later(next.pinActivity[pin] ?? null, at) ?? at } };
  if (next.status === 'offline') return { state: next, step: input.ahead ? { kind: 'activityAt', at, ahead: true } : { kind: 'activityAt', at } };
  if (next.bootstrapped && now - next.mirroredAt >= MIRROR_HEAL_INTERVAL_MS) {
    return { state: { ...next, mirroredAt: now }, step: { kind: 'healMirror' } };
  }
  return { state: next, step: null };
}

/** The device's status topic or Last Will. */
export function receiveStatus(s0: TwinState, input: Partial<StatusInput> | undefined, now: number): Received {
  const s = counted(s0, 'signals', now);
  if ((input?.status !== 'online' && input?.status !== 'offline') || !isTime(input.at)) {
    return { state: s, step: null, warning: 'status signal with a bad payload ignored' };
  }
  if (input.status === 'online') return { state: seenAt(s, input.at), step: { kind: 'activityAt', at: input.at } };
  return { state: s, step: { kind: 'offlineAt', at: input.at, reason: input.reason === 'last will' ? 'last will' : 'status message' } };
}

/** The device's info topic: changed fields (within the limits of common/device-info) and, with `at`, activity. */
export function receiveInfo(s0: TwinState, input: Partial<InfoInput> | undefined, now: number): Received {
  let s = counted(s0, 'signals', now);
  const changes: DeviceInfoFields = {};
  for (const field of INFO_FIELDS) {
    const value = infoFieldValue(input?.[field]);
    if (value !== null && value !== s[field]) {
      changes[field] = value;
      s = { ...s, [field]: value };
    }
  }
  const at = isTime(input?.at) ? input.at : null;
  if (at) s = seenAt(s, at);
  return { state: s, step: { kind: 'info', changes, at } };
}

/** Counts an Update (lock, unlock, rulesChanged) toward the run's budget. */
export function receiveUpdate(s: TwinState, now: number): TwinState {
  return counted(s, 'updates', now);
}

export function endRequested(s: TwinState): TwinState {
  return { ...s, ending: s.ending ?? 'ended' };
}

// ---- Steps: decided when their turn in the twin's queue comes --------------------------------

function statusNotice(rule: TwinRule, status: DeviceStatus): TwinEffect {
  return {
    kind: 'notify',
    rule,
    type: 'device_status',
    title: `Device ${status}`,
    message: rule.message ? rule.message.replaceAll('{value}', status) : `Device is ${status}`,
    priority: status === 'offline' ? 'high' : 'normal',
  };
}

/**
 * online ⇄ offline: the mirror write, then the matching status rules' notifications, then (online)
 * kept commands. A rule with forSeconds waits instead (a StatusHold); the change cancels the holds
 * of the other status, so a device that flaps back within forSeconds notifies nobody.
 */
function transition(s: TwinState, status: DeviceStatus, at: string, reason: DisconnectReason | null = null): Decision {
  if (s.status === status) return { state: s, effects: [] };
  const statusHolds: Record<string, StatusHold> = {};
  const effects: TwinEffect[] = [{ kind: 'writeStatus' }];
  for (const rule of s.rules) {
    if (rule.condition !== status) continue;
    if (rule.forSeconds) statusHolds[rule.id] = { status, since: at, notifyAt: (msOf(at) ?? 0) + rule.forSeconds * 1000 };
    else effects.push(statusNotice(rule, status));
  }
  const next: TwinState = {
    ...s,
    status,
    statusChangedAt: at,
    disconnectReason: status === 'offline' ? reason : null,
    statusHolds,
    lastSeen: status === 'online' ? later(s.lastSeen, at) : s.lastSeen,
    offlineSince: status === 'offline' ? msOf(at) : s.offlineSince,
  };
  if (status === 'online') effects.push({ kind: 'flushCommands' });
  return { state: next, effects };
}

/** Holds due at `now`: notified if the device is still in that status (and the rule still watched). */
function statusHoldsDue(s: TwinState, now: number): Decision {
  const due = Object.entries(s.statusHolds).filter(([, hold]) => hold.notifyAt <= now);
  if (due.length === 0) return { state: s, effects: [] };
  const statusHolds = { ...s.statusHolds };
  const effects: TwinEffect[] = [];
  for (const [ruleId, hold] of due) {
    delete statusHolds[ruleId];
    const rule = s.rules.find((r) => r.id === ruleId && r.condition === hold.status);
    if (rule && s.status === hold.status) effects.push(statusNotice(rule, hold.status));
  }
  return { state: { ...s, statusHolds }, effects };
}

/** Activity at `at` brings an offline device online, unless it predates the device going offline. */
function activityAt(s: TwinState, at: string): Decision {
  if (s.status === 'online') return { state: s, effects: [] };
  const atMs = msOf(at);
  if (atMs === null || (s.offlineSince !== null && atMs <= s.offlineSince)) return { state: s, effects: [] };
  return transition(s, 'online', at);
}

/**
 * A step's decision when its turn comes. `aheadAware` (runs after the heartbeat-watch patch, whose
 * gateway writes `online` ahead): an offline later than the twin's own offline moves it forward and
 * is written, so activity from before it, queued in the outbox, does not bring the device back and
 * an `online` written ahead of that activity is put right.
 */
export function decideStep(s: TwinState, step: TwinStep, aheadAware = false): Decision {
  switch (step.kind) {
    case 'activityAt': {
      const decision = activityAt(s, step.at);
      // The gateway may have written the mirror online ahead: a twin that stays offline puts its own status back.
      if (step.ahead && decision.state.status !== 'online') return { state: decision.state, effects: [...decision.effects, { kind: 'writeStatus' }] };
      return decision;
    }
    case 'offlineAt': {
      const statusAt = msOf(s.statusChangedAt);
      if (statusAt !== null && (msOf(step.at) ?? 0) < statusAt) return { state: s, effects: [] }; // older than the last change
      if (aheadAware && s.status === 'offline') {
        const reason = step.reason ?? 'status message';
        return { state: { ...s, statusChangedAt: step.at, offlineSince: msOf(step.at), disconnectReason: reason }, effects: [{ kind: 'writeStatus' }] };
      }
      return transition(s, 'offline', step.at, step.reason ?? 'status message');
    }
    case 'healMirror':
      return { state: s, effects: [{ kind: 'writeStatus' }] };
    case 'info': {
      const write: TwinEffect[] = Object.keys(step.changes).length > 0 ? [{ kind: 'writeInfo', changes: step.changes }] : [];
      if (!step.at) return { state: s, effects: write };
      const decision = activityAt(s, step.at);
      return { state: decision.state, effects: [...write, ...decision.effects] };
    }
    case 'alarmEdge':
      return alarmEdgeDecision(s, step.edge, step.now);
  }
}

// ---- Locks -----------------------------------------------------------------------------------

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

export function locked(s: TwinState, lock: PinLock): TwinState {
  return { ...s, locks: { ...s.locks, [lock.pin]: lock } };
}

/** The pin whose lock a request releases, or null: no lock, or one held by another widget. */
export function lockToRelease(s: TwinState, req: UnlockInput): string | null {
  const pin = canonicalPin(req.pin) ?? req.pin;
  const lock = s.locks[pin];
  if (!lock) return null;
  if (req.widgetId !== undefined && req.widgetId !== null && lock.widgetId !== req.widgetId) return null;
  return pin;
}

export function unlocked(s: TwinState, pin: string): TwinState {
  const { [pin]: _released, ...locks } = s.locks;
  return { ...s, locks };
}

// ---- Timers ----------------------------------------------------------------------------------

function heartbeatDeadline(s: TwinState, cfg: TwinConfig, now: number): number | null {
  if (s.status !== 'online') return null;
  return (msOf(s.lastSeen) ?? msOf(s.statusChangedAt) ?? now) + timeoutMs(cfg);
}

/**
 * When the twin must next check back (epoch ms), or null when nothing is timed. `watched`: the
 * heartbeat is left to the liveness watch (an activity that retries until the device is silent),
 * so it sets no timer.
 */
export function nextDeadline(s: TwinState, cfg: TwinConfig, now: number, watched = false): number | null {
  if (s.missingSince !== null) return s.missingSince + orphanGraceMs(cfg);
  let next = watched ? null : heartbeatDeadline(s, cfg, now);
  for (const timer of Object.values(s.noData)) {
    if (next === null || timer.checkAt < next) next = timer.checkAt;
  }
  for (const timer of Object.values(s.alarms)) {
    const at = alarmDueAt(timer);
    if (at !== null && (next === null || at < next)) next = at;
  }
  for (const hold of Object.values(s.statusHolds)) {
    if (next === null || hold.notifyAt < next) next = hold.notifyAt;
  }
  return next;
}

/** A timer fired: what to read (last-seen times, due no_data pins), or null when nothing is due. */
export function planCheckBack(s: TwinState, cfg: TwinConfig, now: number, watched = false): CheckBackPlan | null {
  const heartbeatDue = !watched && (heartbeatDeadline(s, cfg, now) ?? Infinity) <= now;
  const due = Object.entries(s.noData).filter(([, timer]) => timer.checkAt <= now);
  const orphanDue = s.missingSince !== null && s.missingSince + orphanGraceMs(cfg) <= now;
  const alarmsDue = Object.entries(s.alarms).filter(([, timer]) => (alarmDueAt(timer) ?? Infinity) <= now);
  const holdsDue = Object.values(s.statusHolds).some((hold) => hold.notifyAt <= now);
  if (!heartbeatDue && due.length === 0 && !orphanDue && alarmsDue.length === 0 && !holdsDue) return null;
  return {
    at: now,
    pins: [...new Set(due.flatMap(([, timer]) => (timer.pin ? [timer.pin] : [])))],
    dueRuleIds: due.map(([ruleId]) => ruleId),
    alarmRuleIds: alarmsDue.map(([ruleId]) => ruleId),
  };
}

/** A no_data rule's timer after a check at `now`; `fires` once per silence, re-armed by data after it. */
export function evaluateNoData(timer: NoDataTimer, lastData: number | null, now: number): { timer: NoDataTimer; fires: boolean } {
  const durationMs = timer.durationS * 1000;
  const rearmed = timer.silenceSince !== null && lastData !== null && lastData > timer.silenceSince;
  const silenceSince = rearmed ? null : timer.silenceSince;
  if (silenceSince !== null) return { timer: { ...timer, checkAt: now + durationMs }, fires: false }; // still silent: look again later
  const since = Math.max(lastData ?? Number.NEGATIVE_INFINITY, timer.armedAt);
  if (now - since >= durationMs) return { timer: { ...timer, silenceSince: since, checkAt: now + durationMs }, fires: true };
  return { timer: { ...timer, silenceSince: null, checkAt: since + durationMs }, fires: false };
}

/**
 * What the check-back read decides: the twin ends when its device stays missing; a silent
 * online device goes offline (else kept commands go out); each due no_data rule fires or re-arms.
 */
export function checkedBack(s0: TwinState, cfg: TwinConfig, plan: CheckBackPlan, seen: LastSeenResult, now: number): Decision {
  if (!seen.exists) {
    if (s0.missingSince === null) return { state: { ...s0, missingSince: now }, effects: [] };
    if (now - s0.missingSince >= orphanGraceMs(cfg)) return { state: { ...s0, ending: 'device-missing' }, effects: [] };
    return { state: s0, effects: [] };
  }
  let s: TwinState = { ...s0, missingSince: null, lastSeen: later(s0.lastSeen, seen.lastSeen), pinActivity: { ...s0.pinActivity } };
  for (const [pin, data] of Object.entries(seen.pins)) {
    if (data) s.pinActivity[pin] = later(s.pinActivity[pin] ?? null, data.updatedAt) ?? data.updatedAt;
  }

  const effects: TwinEffect[] = [];
  if (s.status === 'online') {
    const lastSeen = msOf(s.lastSeen) ?? plan.at;
    if (now - lastSeen >= timeoutMs(cfg)) {
      const offline = transition(s, 'offline', isoOf(now), 'timeout');
      s = offline.state;
      effects.push(...offline.effects);
    } else if (seen.pendingCommands > 0) {
      effects.push({ kind: 'flushCommands' });
    }
  }
  const held = statusHoldsDue(s, now);
  s = held.state;
  effects.push(...held.effects);

  const noData = { ...s.noData };
  for (const ruleId of plan.dueRuleIds) {
    const timer = noData[ruleId];
    if (!timer) continue;
    const data = timer.pin ? seen.pins[timer.pin] : null;
    const lastData = timer.pin ? msOf(data?.updatedAt) : msOf(seen.lastSeen);
    const result = evaluateNoData(timer, lastData, now);
    noData[ruleId] = result.timer;
    const rule = result.fires ? s.rules.find((r) => r.id === ruleId) : undefined;
    if (!rule) continue;
    const value = rule.pin ? (data?.value ?? 'no value') : 'no value';
    effects.push({
      kind: 'notify',
      rule,
      type: 'no_data',
      title: rule.pin ? `No data on ${rule.pin}` : 'No data from device',
      message: rule.message ? rule.message.replaceAll('{value}', value) : `No data from ${rule.pin ?? 'the device'} for ${rule.duration} s`,
      priority: 'high',
    });
  }

  const alarms = { ...s.alarms };
  for (const ruleId of plan.alarmRuleIds) {
    const timer = alarms[ruleId];
    if (!timer) continue;
    const result = evaluateAlarm(timer, seen.alarms?.[ruleId] ?? null, now);
    if (result.timer) alarms[ruleId] = result.timer;
    else delete alarms[ruleId];
    effects.push(...result.effects);
  }
  return { state: { ...s, noData, alarms }, effects };
}

/** Whether a twin with the liveness watch needs one running: online, its device there, not ending. */
export function watchWanted(s: TwinState): boolean {
  return s.bootstrapped && s.status === 'online' && s.missingSince === null && s.ending === null;
}

/** The liveness watch ended (the device went silent, is gone, or has kept commands): decided as a heartbeat check-back. */
export function watchEnded(s: TwinState, cfg: TwinConfig, seen: LastSeenResult, now: number): Decision {
  return checkedBack(s, cfg, { at: now, pins: [], dueRuleIds: [], alarmRuleIds: [] }, seen, now);
}

// ---- Alarms (docs/alarms.md) ------------------------------------------------------------------

const SEVERITY_PRIORITY: Record<AlarmSeverity, NotificationPriority> = {
  critical: 'high',
  major: 'high',
  minor: 'normal',
  warning: 'normal',
  info: 'low',
};

const ALARM_EDGES = new Set(['raise', 'clear']);

/**
 * An alarm edge from the outbox. Delivery is at least once and in no fixed order, so an edge
 * already applied (same id) or older than the last applied one is dropped here.
 */
export function receiveAlarmEdge(s0: TwinState, input: Partial<AlarmEdgeInput> | undefined, now: number): Received {
  const s = counted(s0, 'signals', now);
  const at = msOf(input?.at);
  if (!input || typeof input.edgeId !== 'string' || typeof input.ruleId !== 'string' || !ALARM_EDGES.has(input.edge ?? '') || at === null) {
    return { state: s, step: null, warning: 'alarm edge with a bad payload ignored' };
  }
  const edge = input as AlarmEdgeInput;
  const last = s.alarmEdges[edge.ruleId];
  if (last && (last.id === edge.edgeId || at < last.at)) return { state: s, step: null };
  return {
    state: { ...s, alarmEdges: { ...s.alarmEdges, [edge.ruleId]: { id: edge.edgeId, at } } },
    step: { kind: 'alarmEdge', edge, now },
  };
}

/** When a timer next needs the twin (epoch ms), or null. */
function alarmDueAt(timer: AlarmTimer): number | null {
  const times = [timer.raiseAt, timer.renotifyAt, timer.escalateAt].filter((t): t is number => t !== null);
  return times.length === 0 ? null : Math.min(...times);
}

function withAlarm(s: TwinState, ruleId: string, timer: AlarmTimer | null): TwinState {
  const { [ruleId]: _old, ...alarms } = s.alarms;
  return { ...s, alarms: timer ? { ...alarms, [ruleId]: timer } : alarms };
}

/** The notification of an alarm: raised, reminded while unacknowledged, or escalated (to the escalation's channels too). */
export function alarmNotice(edge: AlarmEdgeInput, why: 'raised' | 'still active' | 'escalated'): TwinEffect {
  const channels = why === 'escalated' && edge.escalate ? [...new Set([...edge.channels, ...edge.escalate.channels])] : edge.channels;
  return {
    kind: 'notify',
    rule: { id: edge.ruleId, channels },
    type: 'threshold',
    title: why === 'raised' ? edge.title : `${edge.title} (${why})`,
    message: edge.message,
    priority: why === 'escalated' ? 'high' : SEVERITY_PRIORITY[edge.severity],
  };
}

/** The alarm raises now: the record, its notification unless the gateway sent it, and its reminders. */
function raiseNow(edge: AlarmEdgeInput, now: number): { timer: AlarmTimer | null; effects: TwinEffect[] } {
  const effects: TwinEffect[] = [{ kind: 'raiseAlarm', edge }];
  if (!edge.notified) effects.push(alarmNotice(edge, 'raised'));
  const renotifyAt = edge.renotifySeconds ? now + edge.renotifySeconds * 1000 : null;
  const escalateAt = edge.escalate ? now + edge.escalate.afterSeconds * 1000 : null;
  const timer: AlarmTimer | null =
    renotifyAt === null && escalateAt === null ? null : { edge, phase: 'active', raiseAt: null, renotifyAt, escalateAt };
  return { timer, effects };
}

/**
 * An edge's turn: a clear cancels a pending raise (nothing was raised) or clears the alarm; a
 * raise waits out forSeconds (counted from the value's time), or raises now.
 */
function alarmEdgeDecision(s: TwinState, edge: AlarmEdgeInput, now: number): Decision {
  const timer = s.alarms[edge.ruleId];
  if (edge.edge === 'clear') {
    return { state: withAlarm(s, edge.ruleId, null), effects: timer?.phase === 'pending' ? [] : [{ kind: 'clearAlarm', edge }] };
  }
  if (edge.forSeconds > 0 && timer?.phase !== 'active') {
    const raiseAt = (msOf(edge.at) ?? now) + edge.forSeconds * 1000;
    return { state: withAlarm(s, edge.ruleId, { edge, phase: 'pending', raiseAt, renotifyAt: null, escalateAt: null }), effects: [] };
  }
  const raised = raiseNow(edge, now);
  return { state: withAlarm(s, edge.ruleId, raised.timer), effects: raised.effects };
}

/**
 * A due alarm timer after a check at `now`: a pending raise goes ahead if the value is still
 * inside; an active alarm that is cleared or acknowledged (or gone) stops reminding, else it is
 * re-notified each period and escalated once.
 */
export function evaluateAlarm(timer: AlarmTimer, reading: AlarmReading | null, now: number): { timer: AlarmTimer | null; effects: TwinEffect[] } {
  if (timer.phase === 'pending') {
    if (timer.raiseAt === null || timer.raiseAt > now) return { timer, effects: [] };
    return reading?.inside ? raiseNow(timer.edge, now) : { timer: null, effects: [] };
  }
  if (!reading || !reading.active || reading.acknowledged) return { timer: null, effects: [] };
  const effects: TwinEffect[] = [];
  let next = timer;
  if (timer.renotifyAt !== null && timer.renotifyAt <= now && timer.edge.renotifySeconds) {
    effects.push(alarmNotice(timer.edge, 'still active'));
    next = { ...next, renotifyAt: now + timer.edge.renotifySeconds * 1000 };
  }
  if (timer.escalateAt !== null && timer.escalateAt <= now) {
    effects.push(alarmNotice(timer.edge, 'escalated'));
    next = { ...next, escalateAt: null };
  }
  return { timer: alarmDueAt(next) === null ? null : next, effects };
}

// ---- History budget --------------------------------------------------------------------------

/** Whether this run should hand over to a new one (Temporal suggests it, or a budget is spent). */
export function continueAsNewDue(s: TwinState, info: { continueAsNewSuggested: boolean; historyLength: number }): boolean {
  return info.continueAsNewSuggested || info.historyLength > HISTORY_EVENT_BUDGET || s.run.messages > RUN_MESSAGE_BUDGET;
}

// ---- The state query -------------------------------------------------------------------------

/** The `state` query's answer. */
export interface TwinView extends TwinConfig {
  status: DeviceStatus;
  lastSeen: string | null;
  statusChangedAt: string | null;
  disconnectReason: DisconnectReason | null;
  ipAddress: string | null;
  firmwareVersion: string | null;
  hardwareType: string | null;
  locks: PinLock[];
  pinActivity: Record<string, string>;
  rules: TwinRule[];
  noData: Array<{ ruleId: string; pin: string | null; durationS: number; fired: boolean; checkAt: string }>;
  alarms: Array<{ ruleId: string; phase: AlarmTimer['phase']; nextAt: string | null }>;
  stats: TwinState['stats'];
  ending: boolean;
}

export function viewOf(s: TwinState, cfg: TwinConfig): TwinView {
  return {
    deviceId: cfg.deviceId,
    projectId: cfg.projectId,
    heartbeatTimeoutS: cfg.heartbeatTimeoutS,
    status: s.status,
    lastSeen: s.lastSeen,
    statusChangedAt: s.statusChangedAt,
    disconnectReason: s.disconnectReason,
    ipAddress: s.ipAddress,
    firmwareVersion: s.firmwareVersion,
    hardwareType: s.hardwareType,
    locks: Object.values(s.locks),
    pinActivity: { ...s.pinActivity },
    rules: s.rules,
    noData: Object.entries(s.noData).map(([ruleId, t]) => ({
      ruleId,
      pin: t.pin,
      durationS: t.durationS,
      fired: t.silenceSince !== null,
      checkAt: isoOf(t.checkAt),
    })),
    alarms: Object.entries(s.alarms).map(([ruleId, t]) => {
      const at = alarmDueAt(t);
      return { ruleId, phase: t.phase, nextAt: at === null ? null : isoOf(at) };
    }),
    stats: { ...s.stats },
    ending: s.ending !== null,
  };
}
