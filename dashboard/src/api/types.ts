/** Records the management API answers with (docs/api.md, docs/management-api.md). */
import type { DeviceStatus } from '../../../common/contracts';
import type { QuotaResource } from '../../../common/quotas';

export type {
  DeviceStatus,
  DeviceStatusEvent,
  NotificationChannel,
  NotificationRecord,
  NotificationRule,
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
  createdAt: string;
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
  deviceId: string;
  /** A V pin's number; a D or A pin's name (`"D0"`, docs/management-api.md). */
  pin: number | string;
  layout: Layout;
  config: WidgetConfig;
  createdAt: string;
  updatedAt: string;
}

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
