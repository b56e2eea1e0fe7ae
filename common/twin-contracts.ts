/**
 * What the rest of the service says to a device's twin and hears back (DESIGN §1, §6): its
 * config, the rules it watches, the payloads of its signals and Updates, its state query's answer
 * and its end. The gateway, the outbox and the twin (workflows/twin/) share these; types only, so
 * the workflow bundle may import them. The twin's activity payloads are in twin-activities.ts.
 */
import type { AlarmEscalation, AlarmSeverity, DeviceStatus, DisconnectReason, NotificationChannel, PinLock } from './contracts';
import type { DeviceInfoFields } from './device-info';

/** What a twin is, fixed for its life: what the gateway starts it with. */
export interface TwinConfig {
  deviceId: string;
  projectId: string;
  heartbeatTimeoutS: number;
}

/** A rule the twin watches itself (threshold rules belong to the gateway). */
export interface TwinRule {
  id: string;
  condition: 'no_data' | 'offline' | 'online';
  /** Pin name (`V5`) for no_data rules bound to a pin; null means "any data from the device". */
  pin: string | null;
  /** Seconds of silence for no_data rules; null for status rules. */
  duration: number | null;
  /** offline/online rules: notify only if the device stays so this long (absent or 0: at once). */
  forSeconds?: number;
  message: string;
  channels: NotificationChannel[];
}

/** `activity`: the gateway saw a message from a device the mirror shows offline (deduplicated). */
export interface ActivityInput {
  /** When the message arrived (ISO 8601). */
  at: string;
  /** The pin it was for, if any. */
  pin?: string;
  /** The gateway showed the device online ahead of the twin (docs/architecture.md "Reconnect storms"). */
  ahead?: boolean;
}

/** `status`: the device's status topic or its Last Will. */
export interface StatusInput {
  status: DeviceStatus;
  at: string;
  /** For `offline`: whether the device said so itself or its Last Will did (absent: a status message). */
  reason?: Exclude<DisconnectReason, 'timeout'>;
}

/** `info`: the device's info topic. Absent fields stay as they were; `at`, when given, also counts as activity. */
export interface InfoInput extends DeviceInfoFields {
  at?: string;
}

/** The `lock` Update. */
export interface LockInput {
  pin: string;
  widgetId: string | null;
}

/** The `unlock` Update. */
export interface UnlockInput {
  pin: string;
  /** When given, only a lock held by this widget is released; when absent or null, any lock is. */
  widgetId?: string | null;
}

export interface UnlockResult {
  released: boolean;
}

export interface RulesChangedResult {
  /** The rules the twin watches after the reload (enabled no_data, offline and online rules). */
  rules: TwinRule[];
}

/**
 * `alarmEdge`: a threshold rule's alarm state flipped on the ingest path (an outbox intent, one per
 * edge, never one per value): `raise` when a value entered the condition, `clear` when one crossed
 * back past the clear threshold (docs/alarms.md). Carries the rule's alarm settings as they were then.
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

/** An alarm the twin times: waiting out forSeconds, or raised and reminding (re-notify, escalation). */
export type AlarmPhase = 'pending' | 'active';

/** What a twin has done since it was created, carried across its runs. */
export interface TwinStats {
  signals: number;
  updates: number;
  notifications: number;
  commandsDelivered: number;
  runs: number;
}

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
  alarms: Array<{ ruleId: string; phase: AlarmPhase; nextAt: string | null }>;
  stats: TwinStats;
  ending: boolean;
}

/** Why a twin ends: its device was deleted (`end`), or its device hash stayed missing. */
export type EndReason = 'ended' | 'device-missing';

/** The workflow's result. */
export interface TwinEnd {
  deviceId: string;
  reason: EndReason;
  endedAt: string;
}
