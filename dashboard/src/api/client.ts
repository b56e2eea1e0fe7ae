import type {
  ApiKey,
  CreatedApiKey,
  Command,
  Device,
  DeviceList,
  DeviceQuery,
  Firmware,
  ImportRow,
  Job,
  JobDeviceState,
  JobDeviceView,
  JobRequest,
  Layout,
  Member,
  NotificationPage,
  NotificationRecord,
  PinLock,
  Point,
  QuotaDetails,
  Project,
  Role,
  ScopedRule,
  Session,
  SimpleApi,
  Template,
  TemplateBody,
  User,
  Widget,
  WidgetConfig,
} from './types';

import type { Alarm } from '../../../common/contracts';

/** What an error envelope's `details` holds: each field's problem, or a QUOTA_EXCEEDED's quota (docs/api.md). */
export type ErrorDetails = Array<{ field: string; problem: string }> | QuotaDetails;

/** An error the API answered with: its HTTP status and the envelope's code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetails = [],
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

const TOKEN_KEY = 'dds.session';

export function storedSession(): Session | null {
  const raw = localStorage.getItem(TOKEN_KEY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Session;
  } catch {
    return null;
  }
}

export function storeSession(session: Session | null): void {
  if (session) localStorage.setItem(TOKEN_KEY, JSON.stringify(session));
  else localStorage.removeItem(TOKEN_KEY);
}

function url(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `/api/v1${path}${qs ? `?${qs}` : ''}`;
}

/** Listeners told when the server says the session is gone (401), so the app can sign out. */
const unauthorizedListeners = new Set<() => void>();
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * Calls the API; a `Blob` body (a firmware image) is sent as it is, as `application/octet-stream`, anything else as JSON.
 * With `text`, a success is the answer's text as it came (a CSV download); a failure is the error envelope as always.
 */
async function call<T>(method: string, path: string, options: { body?: unknown; query?: Query; text?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  const token = storedSession()?.accessToken;
  if (token) headers.Authorization = `Bearer ${token}`;
  const body = options.body instanceof Blob || options.body === undefined ? options.body : JSON.stringify(options.body);
  if (body !== undefined) headers['Content-Type'] = body instanceof Blob ? 'application/octet-stream' : 'application/json';
  const res = await fetch(url(path, options.query), { method, headers, body });
  if (res.status === 204) return undefined as T;
  if (options.text && res.ok) return (await res.text()) as T;
  const envelope = (await res.json().catch(() => null)) as
    | { success: true; data: T }
    | { success: false; error: { code: string; message: string; details?: ErrorDetails } }
    | null;
  if (!envelope) throw new ApiError(res.status, 'BAD_RESPONSE', `The server answered ${res.status}`);
  if (!envelope.success) {
    if (res.status === 401 && token) unauthorizedListeners.forEach((l) => l());
    throw new ApiError(res.status, envelope.error.code, envelope.error.message, envelope.error.details);
  }
  return envelope.data;
}

export interface HistoryQuery {
  from: string;
  to: string;
  aggregate: 'raw' | 'avg' | 'min' | 'max' | 'sum';
  interval?: '1m' | '5m' | '1h' | '1d';
  limit?: number;
}

/** The one typed client every screen uses for `/api/v1`. */
export const api = {
  register: (body: { email: string; password: string; name?: string }) => call<Session>('POST', '/auth/register', { body }),
  login: (body: { email: string; password: string }) => call<Session>('POST', '/auth/login', { body }),
  logout: () => call<void>('POST', '/auth/logout'),
  me: () => call<User>('GET', '/auth/me'),
  broker: () => call<{ mqttUrl: string; topicRoot: string }>('GET', '/broker'),
  requestEmailVerification: () => call<{ email: string; expiresAt: string }>('POST', '/auth/verify-email/request'),
  verifyEmail: (token: string) =>
    call<{ id: string; email: string; emailVerified: true }>('POST', '/auth/verify-email', { body: { token } }),

  apiKeys: () => call<{ apiKeys: ApiKey[] }>('GET', '/api-keys'),
  createApiKey: (body: { name: string; expiresAt?: string }) => call<CreatedApiKey>('POST', '/api-keys', { body }),
  revokeApiKey: (id: string) => call<void>('DELETE', `/api-keys/${id}`),

  projects: () => call<{ projects: Project[] }>('GET', '/projects'),
  project: (id: string) => call<Project>('GET', `/projects/${id}`),
  createProject: (body: { name: string; description?: string }) => call<Project>('POST', '/projects', { body }),
  updateProject: (id: string, body: { name?: string; description?: string }) => call<Project>('PATCH', `/projects/${id}`, { body }),
  deleteProject: (id: string) => call<void>('DELETE', `/projects/${id}`),
  members: (projectId: string) => call<{ members: Member[] }>('GET', `/projects/${projectId}/members`),
  addMember: (projectId: string, body: { email: string; role: Role }) => call<Member>('POST', `/projects/${projectId}/members`, { body }),
  setMemberRole: (projectId: string, userId: string, role: Role) =>
    call<Member>('PATCH', `/projects/${projectId}/members/${userId}`, { body: { role } }),
  removeMember: (projectId: string, userId: string) => call<void>('DELETE', `/projects/${projectId}/members/${userId}`),

  devices: (query: DeviceQuery) => call<DeviceList>('GET', '/devices', { query }),
  device: (id: string) => call<Device>('GET', `/devices/${id}`),
  createDevice: (body: {
    name: string;
    projectId: string;
    description?: string;
    tags?: string[];
    templateId?: string | null;
    heartbeatTimeoutS?: number | null;
  }) => call<Device>('POST', '/devices', { body }),
  updateDevice: (
    id: string,
    body: { name?: string; description?: string; tags?: string[]; templateId?: string | null; heartbeatTimeoutS?: number | null },
  ) => call<Device>('PATCH', `/devices/${id}`, { body }),
  deleteDevice: (id: string) => call<void>('DELETE', `/devices/${id}`),
  /** A bulk import, all rows or none; the answer is the credentials CSV (`id,name,serial,token`), shown only this once. */
  importDevices: (body: { projectId: string; templateId: string | null; devices: ImportRow[] }) =>
    call<string>('POST', '/devices/import', { body, query: { format: 'csv' }, text: true }),
  regenerateDeviceToken: (id: string) => call<{ token: string }>('POST', `/devices/${id}/regenerate-token`),
  deviceStatus: (id: string) =>
    call<{ status: Device['status']; lastSeen: string | null; ipAddress: string | null; firmwareVersion: string | null }>(
      'GET',
      `/devices/${id}/status`,
    ),
  simpleApi: (id: string) => call<SimpleApi>('GET', `/devices/${id}/simple-api`),
  setSimpleApi: (id: string, enabled: boolean) => call<SimpleApi>('PUT', `/devices/${id}/simple-api`, { body: { enabled } }),
  regenerateSimpleToken: (id: string) => call<{ token: string }>('POST', `/devices/${id}/simple-api/regenerate-token`),
  locks: (id: string) => call<{ locks: PinLock[] }>('GET', `/devices/${id}/locks`),
  lockPin: (id: string, pin: string) => call<PinLock>('PUT', `/devices/${id}/pins/${pin}/lock`),
  unlockPin: (id: string, pin: string) => call<void>('DELETE', `/devices/${id}/pins/${pin}/lock`),

  writePin: (deviceId: string, pin: number, value: string) =>
    call<{ delivered: boolean }>('POST', `/data/${deviceId}/${pin}`, { body: { value } }),
  /** A pin's stored points; `pin` is its name (`V3`, `D0`, `A15`), which the data endpoints take for every type. */
  history: (deviceId: string, pin: string, query: HistoryQuery) =>
    call<{ points: Point[] }>('GET', `/data/${deviceId}/${pin}`, { query: { ...query, format: 'json' } }),
  /** The CSV of a history read, fetched with the bearer header (a plain link could not send it). */
  async historyCsv(deviceId: string, pin: string, query: HistoryQuery): Promise<Blob> {
    const token = storedSession()?.accessToken ?? '';
    const res = await fetch(url(`/data/${deviceId}/${pin}`, { ...query, format: 'csv' }), {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (!res.ok) throw new ApiError(res.status, 'CSV_FAILED', `CSV download failed (${res.status})`);
    return res.blob();
  },
  /** Deletes a pin's stored points from `from` to `to` (editor); answers how many went. */
  deleteHistory: (deviceId: string, pin: string, range: { from: string; to: string }) =>
    call<{ deleted: number }>('DELETE', `/data/${deviceId}/${pin}`, { query: range }),

  templates: (projectId: string) => call<{ templates: Template[] }>('GET', '/templates', { query: { projectId } }),
  template: (id: string) => call<Template>('GET', `/templates/${id}`),
  createTemplate: (body: Partial<TemplateBody> & { projectId: string; name: string }) => call<Template>('POST', '/templates', { body }),
  updateTemplate: (id: string, body: Partial<TemplateBody>) => call<Template>('PATCH', `/templates/${id}`, { body }),
  deleteTemplate: (id: string) => call<void>('DELETE', `/templates/${id}`),
  /** A new provisioning key, shown only in this answer (docs/provisioning.md); any earlier key stops working. */
  enableProvisioning: (id: string) => call<{ enabled: true; key: string }>('POST', `/templates/${id}/provisioning`),
  disableProvisioning: (id: string) => call<void>('DELETE', `/templates/${id}/provisioning`),

  /** A project's widgets (`projectId`) or a template's (`templateId`). */
  widgets: (owner: { projectId: string } | { templateId: string }) => call<{ widgets: Widget[] }>('GET', '/widgets', { query: owner }),
  /** A widget of one device (`deviceId`) or of a template's pin (`templateId`). */
  createWidget: (
    body: { type: string; projectId: string; pin: number | string; layout: Layout; config: WidgetConfig } & (
      | { deviceId: string }
      | { templateId: string }
    ),
  ) => call<Widget>('POST', '/widgets', { body }),
  updateWidget: (id: string, body: { layout?: Layout; config?: Record<string, unknown> }) =>
    call<Widget>('PATCH', `/widgets/${id}`, { body }),
  deleteWidget: (id: string) => call<void>('DELETE', `/widgets/${id}`),

  rules: (projectId: string) => call<{ rules: ScopedRule[] }>('GET', '/notifications/rules', { query: { projectId } }),
  createRule: (body: Record<string, unknown>) => call<ScopedRule>('POST', '/notifications/rules', { body }),
  updateRule: (id: string, body: Record<string, unknown>) => call<ScopedRule>('PATCH', `/notifications/rules/${id}`, { body }),
  deleteRule: (id: string) => call<void>('DELETE', `/notifications/rules/${id}`),

  notifications: (query: { projectId?: string; deviceId?: string; type?: string; unread?: boolean; page?: number; limit?: number }) =>
    call<NotificationPage>('GET', '/notifications', { query }),
  markRead: (id: string) => call<NotificationRecord>('PATCH', `/notifications/${id}/read`),
  readAll: (projectId?: string) => call<{ updated: number }>('PATCH', '/notifications/read-all', { query: { projectId } }),
  deleteNotification: (id: string) => call<void>('DELETE', `/notifications/${id}`),

  alarms: (query: { projectId?: string; deviceId?: string; severity?: string; state?: string; page?: number; limit?: number }) =>
    call<{ alarms: Alarm[]; total: number; page: number; limit: number }>('GET', '/alarms', { query }),
  command: (id: string) => call<Command>('GET', `/commands/${id}`),

  jobs: (projectId: string) => call<{ jobs: Job[] }>('GET', '/jobs', { query: { projectId } }),
  job: (id: string) => call<Job>('GET', `/jobs/${id}`),
  jobDevices: (id: string, query: { state?: JobDeviceState; page?: number; limit?: number }) =>
    call<{ devices: JobDeviceView[]; total: number; page: number; limit: number }>('GET', `/jobs/${id}/devices`, { query }),
  createJob: (body: JobRequest) => call<Job>('POST', '/jobs', { body }),
  cancelJob: (id: string) => call<Job>('POST', `/jobs/${id}/cancel`),

  firmware: (projectId: string) => call<{ firmware: Firmware[] }>('GET', '/firmware', { query: { projectId } }),
  /** Uploads an image (editor): its bytes are the body, its name and version the query. */
  uploadFirmware: (query: { projectId: string; name: string; version: string }, image: Blob) =>
    call<Firmware>('POST', '/firmware', { query, body: image }),

  acknowledgeAlarm: (id: string) => call<Alarm>('POST', `/alarms/${id}/acknowledge`),
  clearAlarm: (id: string) => call<Alarm>('POST', `/alarms/${id}/clear`),
};
