/**
 * Names and payload shapes shared by the gateway, the workers and the workflows.
 * No Node imports here: the workflow bundle imports this file.
 */

import type { Job } from './jobs';

export const twinWorkflowId = (deviceId: string): string => `device-twin:${deviceId}`;

/** The delivery workflow of one notification: one id per record, so a repeated hand-off is one delivery. */
export const notificationWorkflowId = (notificationId: string): string => `notification-delivery:${notificationId}`;

export type DeviceStatus = 'online' | 'offline';

/** Why a device went offline: its heartbeat timed out, it said so on its status topic, or its Last Will did. */
export const DISCONNECT_REASONS = ['timeout', 'status message', 'last will'] as const;
export type DisconnectReason = (typeof DISCONNECT_REASONS)[number];
export const isDisconnectReason = (v: unknown): v is DisconnectReason => (DISCONNECT_REASONS as readonly unknown[]).includes(v);

export interface PinLock {
  pin: string;
  lockedAt: string;
  widgetId: string | null;
}

export type ThresholdCondition = 'gt' | 'gte' | 'lt' | 'lte' | 'eq' | 'neq';
export const THRESHOLD_CONDITIONS: readonly ThresholdCondition[] = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'];

export function isThresholdCondition(condition: string): condition is ThresholdCondition {
  return (THRESHOLD_CONDITIONS as readonly string[]).includes(condition);
}
export type RuleCondition = ThresholdCondition | 'no_data' | 'offline' | 'online';
export type NotificationChannel = 'inApp' | 'push' | 'email';
export type NotificationType = 'threshold' | 'device_status' | 'no_data';
export type NotificationPriority = 'low' | 'normal' | 'high';

/** How bad an alarm is, worst first. */
export const ALARM_SEVERITIES = ['critical', 'major', 'minor', 'warning', 'info'] as const;
export type AlarmSeverity = (typeof ALARM_SEVERITIES)[number];

/** A severity's notification priority (docs/alarms.md): one table for the gateway's first notice and the twin's later ones. */
export const SEVERITY_PRIORITY: Readonly<Record<AlarmSeverity, NotificationPriority>> = {
  critical: 'high',
  major: 'high',
  minor: 'normal',
  warning: 'normal',
  info: 'low',
};

/** A threshold rule's escalation: unacknowledged this long, its alarm is notified on these channels too. */
export interface AlarmEscalation {
  afterSeconds: number;
  channels: NotificationChannel[];
}

/**
 * A threshold rule's alarm settings, all optional (absent from rules that do not set them).
 * clearThreshold: hysteresis, the alarm clears only once the value crosses back past it;
 * forSeconds: the condition must hold this long before the alarm raises; renotifySeconds: while
 * active and unacknowledged, notify again at this period; escalate: see AlarmEscalation.
 */
export interface AlarmSettings {
  clearThreshold?: number | null;
  forSeconds?: number | null;
  severity?: AlarmSeverity | null;
  renotifySeconds?: number | null;
  escalate?: AlarmEscalation | null;
}

/** Which devices a rule covers (DESIGN §12): one device, a template's, a tag's, or the whole project's. */
export const RULE_SCOPES = ['device', 'template', 'tag', 'project'] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];

export interface NotificationRule extends AlarmSettings {
  id: string;
  projectId: string;
  scope: RuleScope;
  /** Set for scope `device` only; `templateId` for `template`, `tag` for `tag`; all three null for `project`. */
  deviceId: string | null;
  templateId: string | null;
  tag: string | null;
  pin: number | null;
  condition: RuleCondition;
  threshold: number | null;
  duration: number | null;
  message: string;
  channels: NotificationChannel[];
  enabled: boolean;
  createdAt: string;
}

/** The data types a pin's values are shown as (SPEC §2.8): a widget's `dataType`, a template pin's. */
export const DATA_TYPES = ['INTEGER', 'FLOAT', 'STRING', 'BOOLEAN', 'JSON'] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** A pin a template defines (DESIGN §12): its name in the console, data type, unit and range. */
export interface TemplatePin {
  pin: string;
  name: string;
  dataType: DataType;
  unit: string | null;
  min: number | null;
  max: number | null;
}

/** A device template (DESIGN §12), as stored; `deviceCount` is added when it is read. */
export interface Template {
  id: string;
  projectId: string;
  name: string;
  description: string;
  heartbeatTimeoutS: number | null;
  pins: TemplatePin[];
  createdAt: string;
}

/** A template as the API answers it: with the number of devices that have it. */
/** A template as read: with how many devices have it and whether devices may provision themselves from it (DESIGN §14; never the key). */
export type TemplateView = Template & { deviceCount: number; provisioning: { enabled: boolean } };

export interface NotificationRecord {
  id: string;
  projectId: string;
  deviceId: string | null;
  ruleId: string | null;
  type: NotificationType | 'device';
  title: string;
  message: string;
  priority: NotificationPriority;
  channels: NotificationChannel[];
  read: boolean;
  createdAt: string;
}

/** One alarm: one record per threshold rule and device (docs/alarms.md). */
export interface Alarm {
  id: string;
  projectId: string;
  deviceId: string;
  ruleId: string;
  pin: string;
  severity: AlarmSeverity;
  state: 'active' | 'cleared';
  acknowledged: boolean;
  /** The value that last raised it. */
  value: string;
  raisedCount: number;
  firstRaisedAt: string;
  lastRaisedAt: string;
  clearedAt: string | null;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
}

export const COMMAND_STATES = ['queued', 'sent', 'acknowledged', 'expired', 'superseded'] as const;
export type CommandState = (typeof COMMAND_STATES)[number];

/** An app's write toward a device, with its receipt (docs/commands.md). */
export interface Command {
  id: string;
  deviceId: string;
  pin: string;
  value: string;
  state: CommandState;
  createdAt: string;
  sentAt: string | null;
  acknowledgedAt: string | null;
  expiresAt: string | null;
}

/** Socket.IO: what the server sends (DESIGN §7). */
/** Every device event carries the device's sequence number, which only grows (docs/realtime.md). */
export interface Sequenced {
  seq?: number;
}

export interface PinUpdateEvent extends Sequenced {
  deviceId: string;
  pin: string;
  value: string;
  updatedAt: string;
}

export interface DeviceStatusEvent extends Sequenced {
  deviceId: string;
  status: DeviceStatus;
  lastSeen: string | null;
  /** Why it went offline; null when online (or not known). */
  reason?: DisconnectReason | null;
}

/** A resync's answer for one device (store/device-sync.ts DeviceSnapshot). */
export interface DeviceSnapshotEvent {
  deviceId: string;
  seq: number;
  status: DeviceStatus;
  lastSeen: string | null;
  pins: Record<string, { value: string; updatedAt: string }>;
}

export interface SocketErrorEvent {
  code: string;
  message: string;
}

export interface ServerToClientEvents {
  'pin:update': (event: PinUpdateEvent) => void;
  'device:status': (event: DeviceStatusEvent) => void;
  notification: (record: NotificationRecord) => void;
  /** An alarm after each change (raised, cleared, acknowledged), to its project's room. */
  alarm: (alarm: Alarm & Sequenced) => void;
  /** A command after each change of state, to its device's and project's rooms. */
  command: (command: Command & Sequenced) => void;
  /** A job after each change (state, counts), to its project's room (docs/jobs.md). */
  job: (job: Job) => void;
  error: (event: SocketErrorEvent) => void;
}

export type Ack<T> = ({ success: true } & T) | { success: false; error: SocketErrorEvent };

export interface ClientToServerEvents {
  subscribe: (target: unknown, ack?: (result: Ack<object>) => void) => void;
  unsubscribe: (target: unknown, ack?: (result: Ack<object>) => void) => void;
  /** docs/realtime.md: a client that saw a gap (or reconnected) gets the latest state of a device or a project's devices. */
  resync: (target: unknown, ack?: (result: Ack<{ devices: DeviceSnapshotEvent[] }>) => void) => void;
  'pin:write': (payload: unknown, ack?: (result: Ack<{ delivered: boolean; commandId: string | null }>) => void) => void;
}

/** Socket.IO rooms every emitter (gateway and workers) uses. */
export const rooms = {
  project: (projectId: string) => `project:${projectId}`,
  device: (deviceId: string) => `device:${deviceId}`,
  user: (userId: string) => `user:${userId}`,
  /** A login's sockets, by session id (the token's hash, never the token). */
  session: (sessionId: string) => `session:${sessionId}`,
  /**
   * The channel a project's device events are published on: no event is sent to it, but every
   * socket subscribed to the project or to one of its devices sits in it, so a node reads those
   * events only while one of its own sockets watches the project (docs/realtime.md).
   */
  watch: (projectId: string) => `watch:${projectId}`,
};
