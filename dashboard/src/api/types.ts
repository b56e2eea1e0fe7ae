/** Records the management API answers with (docs/api.md, docs/management-api.md). */
import type { DeviceStatus, NotificationRule, TemplatePin } from '../../../common/contracts';
import type { QuotaResource } from '../../../common/quotas';
import type { JobAction, JobDevice, JobFilter, JobTarget } from '../../../common/jobs';

export type {
  DeviceStatus,
  DeviceStatusEvent,
  NotificationChannel,
  NotificationRecord,
  PinLock,
  PinUpdateEvent,
  RuleCondition,
} from '../../../common/contracts';

export type Role = 'owner' | 'admin' | 'editor' | 'viewer';
export type Plan = string;

export type { QuotaResource };

/** Each quota of the user's plan with its use (GET /auth/me, docs/limits.md "Quotas"); `limit` null: none. */
export type Quotas = Record<QuotaResource, { limit: number | null; used: number }>;

/** The details of a 403 QUOTA_EXCEEDED. */
export interface QuotaDetails {
  resource: QuotaResource;
  limit: number;
  used: number;
}

export interface User {
  id: string;
  email: string;
  name: string;
  plan: Plan;
  /** Whether the address was verified; notification email goes only to verified addresses. */
  emailVerified: boolean;
  createdAt?: string;
  /** On GET /auth/me only. */
  quotas?: Quotas;
}

export interface Session {
  user: User;
  accessToken: string;
  expiresAt: string;
}

export interface Project {
  id: string;
  name: string;
  description: string;
  deviceCount: number;
  role: Role;
  createdAt: string;
}

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
}

export interface Device {
  id: string;
  name: string;
  description: string;
  tags: string[];
  status: DeviceStatus;
  lastSeen: string | null;
  projectId: string;
  token: string;
  ipAddress: string | null;
  firmwareVersion: string | null;
  /** The device's template (DESIGN §12), or null. */
  templateId: string | null;
  /** Its own heartbeat timeout in seconds; null: its template's, else the service's default. */
  heartbeatTimeoutS: number | null;
  /** The serial it was provisioned or imported with (DESIGN §14), or null. */
  serial: string | null;
  createdAt: string;
}

/** One row of a bulk import (POST /devices/import, docs/provisioning.md "Bulk import"). */
export interface ImportRow {
  name: string;
  serial?: string;
  tags?: string[];
  description?: string;
}

export interface DeviceList {
  devices: Device[];
  total: number;
  page: number;
  limit: number;
}

export interface SimpleApi {
  enabled: boolean;
  token: string | null;
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

export interface CreatedApiKey {
  id: string;
  name: string;
  key: string;
  createdAt: string;
  expiresAt: string | null;
}

export interface Layout {
  x: number;
  y: number;
  w: number;
  h: number;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type WidgetConfig = Record<string, JsonValue>;

export interface Widget {
  id: string;
  type: string;
  projectId: string;
  /** The device it shows; null for a template's widget (bound to `templateId`'s pin instead). */
  deviceId: string | null;
  templateId?: string | null;
  /** A V pin's number; a D or A pin's name (`"D0"`, docs/management-api.md). */
  pin: number | string;
  layout: Layout;
  config: WidgetConfig;
  createdAt: string;
  updatedAt: string;
}

/** A widget bound to one device, as the grid shows it: a template's widget gets the device picked for it. */
export type DeviceWidget = Widget & { deviceId: string };

export const isDeviceWidget = (w: Widget): w is DeviceWidget => typeof w.deviceId === 'string' && w.deviceId !== '';

export type { DataType, TemplatePin, TemplateView as Template } from '../../../common/contracts';

/** What a template create or PATCH sends (PATCH: any of them). */
export interface TemplateBody {
  name: string;
  description: string;
  heartbeatTimeoutS: number | null;
  pins: TemplatePin[];
}

/** Which devices a rule watches (DESIGN §12): one, a template's, those with a tag, or every one of the project. */
export type RuleScope = 'device' | 'template' | 'tag' | 'project';

/** A notification rule with its scope; `deviceId` is null unless the scope is one device. */
export type ScopedRule = Omit<NotificationRule, 'deviceId' | 'scope' | 'templateId' | 'tag'> & {
  deviceId: string | null;
  scope: RuleScope;
  templateId: string | null;
  tag: string | null;
};

export interface Point {
  timestamp: string;
  value: number;
}

export interface NotificationPage {
  notifications: import('../../../common/contracts').NotificationRecord[];
  total: number;
  page: number;
  limit: number;
  unread: number;
}

export type { Command, CommandState } from '../../../common/contracts';
export type { Firmware } from '../../../common/firmware';
export type { Job, JobAction, JobCounts, JobDeviceState, JobFilter, JobState, JobTarget } from '../../../common/jobs';

/** One device of a job as `GET /jobs/{id}/devices` answers it (DESIGN §13). */
export type JobDeviceView = Omit<JobDevice, 'sentMs'>;

/** What `POST /jobs` takes (DESIGN §13); a rollout field left out is the server's default. */
export interface JobRequest {
  projectId: string;
  target: JobTarget;
  action: JobAction;
  rollout?: { maxPerMinute?: number; abortFailureRatio?: number; minDevices?: number };
  ttlSeconds?: number;
}

/** The device list's filters (`GET /devices`, DESIGN §13); `projectId` left out: every project of the caller. */
export type DeviceQuery = Omit<JobFilter, 'status'> & {
  projectId?: string;
  status?: string;
  page?: number;
  limit?: number;
};
