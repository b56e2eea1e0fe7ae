import type { Request } from '../helpers/http';
import type { Stack } from '../helpers/stack';
import { connectAsDevice, type TestUser } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

/** Fixtures of the external interfaces: plans, API keys, simple-interface tokens, online devices. */
export { setPlan } from '../helpers/fixtures';

export async function createApiKey(request: Request, user: TestUser, expiresAt?: string): Promise<{ id: string; key: string }> {
  const res = await request('POST', '/api/v1/api-keys', { token: user.token, body: { name: 'test key', expiresAt } });
  if (res.status !== 201) throw new Error(`create api key failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function enableSimpleApi(request: Request, user: TestUser, deviceId: string, enabled = true): Promise<string> {
  const res = await request('PUT', `/api/v1/devices/${deviceId}/simple-api`, { token: user.token, body: { enabled } });
  if (res.status !== 200) throw new Error(`simple api switch failed: ${res.status} ${res.text}`);
  return res.body.data.token;
}

export async function lockPin(request: Request, user: TestUser, deviceId: string, pin: string): Promise<void> {
  const res = await request('PUT', `/api/v1/devices/${deviceId}/pins/${pin}/lock`, { token: user.token });
  if (res.status !== 200) throw new Error(`lock failed: ${res.status} ${res.text}`);
}

/** A VALUE_DISPLAY widget bound to V{pin} of a device, labelled, made through the widgets API. */
export async function labelPin(
  request: Request,
  user: TestUser,
  projectId: string,
  deviceId: string,
  pin: number,
  label: string,
): Promise<void> {
  const res = await request('POST', '/api/v1/widgets', {
    token: user.token,
    body: { type: 'VALUE_DISPLAY', projectId, deviceId, pin, layout: { x: 0, y: 0, w: 2, h: 1 }, config: { label } },
  });
  if (res.status !== 201) throw new Error(`widget create failed: ${res.status} ${res.text}`);
}

export interface DeviceConnection {
  /** Values the service sent to the device's command topics. */
  commands: { pin: string; value: string }[];
  close(): Promise<void>;
}

/**
 * Connects as the device over MQTT, reports `online` and its info, and waits until the twin's
 * mirror shows it online. Collects the commands the service sends it.
 */
export async function connectDevice(
  stack: Stack,
  device: { id: string; token: string },
  info: Record<string, string> = {},
): Promise<DeviceConnection> {
  const root = stack.config.MQTT_TOPIC_ROOT;
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  const commands: { pin: string; value: string }[] = [];
  client.on('message', (topic, payload) => {
    const match = /\/pin\/([^/]+)\/set$/.exec(topic);
    if (match?.[1]) commands.push({ pin: match[1], value: payload.toString('utf8') });
  });
  await client.subscribeAsync(`${root}/${device.id}/pin/+/set`, { qos: 1 });
  await client.publishAsync(`${root}/${device.id}/status`, 'online', { qos: 1, retain: true });
  if (Object.keys(info).length > 0) await client.publishAsync(`${root}/${device.id}/info`, JSON.stringify(info), { qos: 1 });
  await eventually(async () => {
    const state = await stack.redis.hgetall(keys.deviceState(device.id));
    // Shown online and confirmed by the twin (an `online` written ahead of it carries statusAhead
    // until then: docs/architecture.md "Reconnect storms"), so the platform agrees it is online.
    if (state.status !== 'online' || state.statusAhead !== undefined) throw new Error('device not online yet');
    for (const [field, value] of Object.entries(info)) if (state[field] !== value) throw new Error(`${field} not mirrored yet`);
  });
  return { commands, close: () => client.endAsync() };
}

/** The three rate-limit headers of a response, as numbers. */
export function rateHeaders(headers: Headers): { limit: number; remaining: number; reset: number } {
  return {
    limit: Number(headers.get('x-ratelimit-limit')),
    remaining: Number(headers.get('x-ratelimit-remaining')),
    reset: Number(headers.get('x-ratelimit-reset')),
  };
}

/** The end of the current minute window in Unix seconds, as X-RateLimit-Reset reports it. */
export function minuteWindowEnd(now = Date.now()): number {
  return (Math.floor(now / 60_000) + 1) * 60;
}
