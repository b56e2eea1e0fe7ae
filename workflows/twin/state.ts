/**
 * The twin's one state object and the shapes inside it. Every reducer of workflows/twin/ takes
 * it and returns a new one (nothing mutated in place); the shell (device-twin.ts) holds the only
 * copy, and continue-as-new carries it to the next run (resumeState).
 */
import type { DeviceStatus, DisconnectReason, PinLock } from '../../common/contracts';
import type { AlarmEdgeInput, AlarmPhase, EndReason, TwinRule, TwinStats } from '../../common/twin-contracts';

/** A no_data rule's timer (no-data.ts). */
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

/** An alarm the twin is timing (alarms.ts): waiting out forSeconds, or raised and reminding (re-notify, escalation). */
export interface AlarmTimer {
  /** The raise edge it belongs to. */
  edge: AlarmEdgeInput;
  phase: AlarmPhase;
  /** Epoch ms: pending raises then, if the value is still inside. */
  raiseAt: number | null;
  renotifyAt: number | null;
  escalateAt: number | null;
}

/** A status rule with forSeconds waiting for the device to stay that way (status-rules.ts, docs/alarms.md). */
export interface StatusHold {
  status: DeviceStatus;
  /** The status change it waits on (ISO 8601): the notification's `{value}` time. */
  since: string;
  notifyAt: number;
}

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
  /** The heartbeat timeout the device or its template sets (null: the run's default), as last loaded with the rules. */
  heartbeatTimeoutS: number | null;
  /** The project rules version the rules were loaded at (null: not known); a newer one read later reloads them (rule-set.ts). */
  rulesVersion: string | null;
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
  stats: TwinStats;
  /** Why the twin is ending, once it is. */
  ending: EndReason | null;
  /** This run's messages (signals and Updates) and when the last came: the continue-as-new budget is per run. */
  run: { messages: number; lastMessageAt: number };
}

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
    heartbeatTimeoutS: null,
    rulesVersion: null,
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
 * Runs carried by older code lack the newer fields, which get their defaults here (never a
 * migration in the shell); the run counters start again each run.
 */
export function resumeState(carried: Partial<TwinState> | undefined): TwinState {
  if (!carried) return freshState();
  return { ...freshState(), ...carried, ending: null, run: { messages: 0, lastMessageAt: 0 } };
}

/** The state carried to the next run. */
export function carryOver(s: TwinState): TwinState {
  return { ...s, stats: { ...s.stats, runs: s.stats.runs + 1 } };
}

/** A signal or Update came: counted in the stats and toward this run's budget (continue-as-new.ts). */
export function counted(s: TwinState, kind: 'signals' | 'updates', now: number): TwinState {
  return {
    ...s,
    stats: { ...s.stats, [kind]: s.stats[kind] + 1 },
    run: { messages: s.run.messages + 1, lastMessageAt: now },
  };
}

/** A notification's delivery was started. */
export function notified(s: TwinState): TwinState {
  return { ...s, stats: { ...s.stats, notifications: s.stats.notifications + 1 } };
}
