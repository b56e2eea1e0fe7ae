import { randomUUID } from 'node:crypto';
import type { Plan } from '../../common/plans';
import type { NotificationRecord } from '../../common/contracts';
import type { Redis } from '../../common/redis';
import { writeStatus } from '../../store/device-mirror';
import mqtt from 'mqtt';
import type { Request } from './http';
import { ADMIN_TOKEN } from './stack';

export interface TestUser {
  id: string;
  email: string;
  token: string;
}

export async function registerUser(request: Request, name = 'Test User'): Promise<TestUser> {
  const email = `user-${randomUUID()}@example.com`;
  const res = await request('POST', '/api/v1/auth/register', { body: { email, password: 'correct horse battery', name } });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return { id: res.body.data.user.id, email, token: res.body.data.accessToken };
}

/**
 * Gives `user` a plan through the admin route (DESIGN §2): a test that makes more than the free
 * plan's quotas allow (docs/limits.md "Quotas") gives its user a plan with room, so the quota stays real.
 */
export async function setPlan(request: Request, user: { id: string }, plan: Plan): Promise<void> {
  const res = await request('PUT', `/api/v1/admin/users/${user.id}/plan`, { token: ADMIN_TOKEN, body: { plan } });
  if (res.status !== 200) throw new Error(`set plan failed: ${res.status} ${res.text}`);
}

export async function createProject(request: Request, user: TestUser, name = 'Greenhouse'): Promise<{ id: string }> {
  const res = await request('POST', '/api/v1/projects', { token: user.token, body: { name, description: 'test project' } });
  if (res.status !== 201) throw new Error(`create project failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function createDevice(
  request: Request,
  user: TestUser,
  projectId: string,
  name = 'Sensor',
): Promise<{ id: string; token: string }> {
  const res = await request('POST', '/api/v1/devices', { token: user.token, body: { name, projectId, description: 'test device' } });
  if (res.status !== 201) throw new Error(`create device failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function addMember(request: Request, owner: TestUser, projectId: string, member: TestUser, role: string): Promise<void> {
  const res = await request('POST', `/api/v1/projects/${projectId}/members`, { token: owner.token, body: { email: member.email, role } });
  if (res.status !== 201) throw new Error(`add member failed: ${res.status} ${res.text}`);
}

/** Writes a value to a device's V pin through the management API, the production ingest path. */
export async function writeValue(request: Request, user: TestUser, deviceId: string, pin: number, value: string): Promise<void> {
  const res = await request('POST', `/api/v1/data/${deviceId}/${pin}`, { token: user.token, body: { value } });
  if (res.status !== 201) throw new Error(`write value failed: ${res.status} ${res.text}`);
}

/** Sets a device's mirrored status with the write its twin makes (store/device-mirror.ts). */
export async function mirrorStatus(redis: Redis, deviceId: string, status: 'online' | 'offline'): Promise<void> {
  const now = new Date().toISOString();
  const { written } = await writeStatus(redis, { deviceId, status, statusChangedAt: now, lastSeen: now });
  if (!written) throw new Error(`mirror status failed: device ${deviceId} is gone`);
}

/** An MQTT 5 connection as the device itself: username its id, password its `dt_` token. */
export function connectAsDevice(
  mqttUrl: string,
  device: { id: string; token: string },
  options: Pick<mqtt.IClientOptions, 'reconnectPeriod' | 'connectTimeout' | 'will' | 'ca' | 'rejectUnauthorized' | 'servername'> = {},
): Promise<mqtt.MqttClient> {
  return mqtt.connectAsync(mqttUrl, { username: device.id, password: device.token, protocolVersion: 5, reconnectPeriod: 0, ...options });
}

/** A threshold notification record, as the outbox carries one (in-app only). */
export function thresholdNotification(projectId: string = randomUUID()): NotificationRecord {
  return {
    id: randomUUID(),
    projectId,
    deviceId: null,
    ruleId: null,
    type: 'threshold',
    title: 't',
    message: 'm',
    priority: 'normal',
    channels: ['inApp'],
    read: false,
    createdAt: new Date().toISOString(),
  };
}
