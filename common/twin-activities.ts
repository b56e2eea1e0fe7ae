/**
 * Payloads of the twin's activities (activities/): what the twin (workflows/twin/) asks of Redis
 * and what it reads back. Types only, so the workflow bundle may import them; store/alarms.ts
 * answers AlarmReading.
 */
import type { DeviceStatus, DisconnectReason, NotificationChannel, NotificationRecord, PinLock } from './contracts';
import type { DeviceInfoFields } from './device-info';
import type { AlarmEdgeInput, TwinRule } from './twin-contracts';

/** What the mirror holds, read when a twin starts fresh (never started, or lost). */
export interface MirrorSnapshot {
  status: DeviceStatus | null;
  lastSeen: string | null;
  statusChangedAt: string | null;
  ipAddress: string | null;
  firmwareVersion: string | null;
  hardwareType: string | null;
  /** `online` was written ahead by the gateway and the twin has not confirmed it yet (absent in older histories). */
  statusAhead?: boolean;
}

/**
 * What a twin watches by besides its rules (absent from histories recorded before templates):
 * its heartbeat as set (own, else its template's; null: the service default) and the project
 * rules version its rules were read at (docs/architecture.md "Fleet rules").
 */
export interface RuleSetFields {
  heartbeatTimeoutS?: number | null;
  rulesVersion?: string;
}

export interface BootstrapResult extends RuleSetFields {
  /** False when the hash `device:{id}` does not exist (deleted, or not created yet). */
  exists: boolean;
  mirror: MirrorSnapshot;
  locks: PinLock[];
  rules: TwinRule[];
}

export interface RulesResult extends RuleSetFields {
  exists: boolean;
  rules: TwinRule[];
}

export interface LastSeenRequest {
  deviceId: string;
  /** The device's project: its rules version is read too (absent from older histories). */
  projectId?: string;
  /** Pins whose last update time is wanted (pin names). */
  pins: string[];
  /** Rules whose alarm (record and edge state) is wanted; absent when none. */
  alarms?: string[];
}

/** What a check-back read of one alarm says: its rule's edge state and the stored record's. */
export interface AlarmReading {
  /** The rule's edge state: the value is inside the alarm band now. */
  inside: boolean;
  active: boolean;
  acknowledged: boolean;
}

export interface LastSeenResult {
  exists: boolean;
  /** `lastSeen` of `device:{id}:state`, written by the gateway on every message. */
  lastSeen: string | null;
  /** Per requested pin: its last value and update time, or null when it never had one. */
  pins: Record<string, { value: string; updatedAt: string } | null>;
  /** How many commands are kept for the device. */
  pendingCommands: number;
  /** Per requested alarm rule id (LastSeenRequest.alarms). */
  alarms?: Record<string, AlarmReading>;
  /** The project's rules version now, when the request named the project. */
  rulesVersion?: string;
}

/** The liveness watch: returns once the device has been silent for its heartbeat timeout (or is gone). */
export interface AwaitSilenceRequest {
  deviceId: string;
  /** The device's project, so the result carries its rules version (absent from older histories). */
  projectId?: string;
  /** The service default; the device's own or its template's, read at each attempt, comes first. */
  heartbeatTimeoutS: number;
  /** The twin's last activity (ISO 8601) when it started the watch: silence is counted from the later of this and the mirror's lastSeen. */
  since: string;
}

export interface WriteStatusRequest {
  deviceId: string;
  /** The device's project, so the result carries its rules version (absent from older histories). */
  projectId?: string;
  status: DeviceStatus;
  statusChangedAt: string;
  lastSeen: string | null;
  /** Why it went offline (absent from histories recorded before it existed). */
  disconnectReason?: DisconnectReason | null;
  /** The device's first status: written only while the mirror has none (absent from older histories). */
  firstStatus?: boolean;
}

export interface WriteStatusResult {
  /** False when the device no longer exists: nothing was written or emitted. */
  written: boolean;
  /** lastSeen as the mirror now holds it (the gateway may have moved it further). */
  lastSeen: string | null;
  /** The project's rules version after the write, when the request named the project. */
  rulesVersion?: string;
}

export type WriteInfoRequest = { deviceId: string } & DeviceInfoFields;

export interface WriteLockRequest {
  deviceId: string;
  lock: PinLock;
}

export interface DeleteLockRequest {
  deviceId: string;
  pin: string;
}

export interface CreateNotificationRequest {
  record: NotificationRecord;
}

export interface CreateNotificationResult {
  outcome: 'created' | 'exists' | 'gone';
  /** Channels the record went out on during this call. */
  delivered: NotificationChannel[];
  /** Channels left to their own activities (email, push). */
  skipped: NotificationChannel[];
}

export interface FlushCommandsResult {
  delivered: number;
  /** Commands still kept (the broker was unreachable). */
  left: number;
}

export interface RaiseAlarmRequest {
  deviceId: string;
  projectId: string;
  edge: AlarmEdgeInput;
}

export interface ClearAlarmRequest {
  deviceId: string;
  edge: AlarmEdgeInput;
}
