/**
 * Devices that provision themselves (DESIGN §14, issue 40) on the real servers: a template's key
 * (admin), a device's first boot with it and its serial, its broker login with the returned token
 * and its first value stored, the template's heartbeat on its twin, once per serial (also when two
 * boots race), a wrong or disabled key, the owner's device quota, and the per-address throttle.
 */
import { randomInt } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type mqtt from 'mqtt';
import type { TwinClient } from '../../gateway/temporal/twin-client';
import { keys } from '../../common/redis-keys';
import { addMember, connectAsDevice, createProject, registerUser, setPlan, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { connectTwinClient } from '../helpers/twin-client';
import { eventually } from '../helpers/wait';

const THROTTLE_LIMIT = 4;
let stack: Stack;
let twins: TwinClient;
let closeTwins: () => Promise<void>;
let owner: TestUser;
let projectId: string;
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: true, overrides: { PROVISION_MAX_FAILURES_PER_ADDRESS: String(THROTTLE_LIMIT) } });
  ({ twins, close: closeTwins } = await connectTwinClient(stack));
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'pro');
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await closeTwins();
  await stack.stop();
});

const PINS = [{ pin: 'V0', name: 'Temperature', dataType: 'FLOAT', unit: '°C', min: -40, max: 85 }];

async function makeTemplate(user: TestUser, inProject: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await stack.request('POST', '/api/v1/templates', {
    token: user.token,
    body: { projectId: inProject, name: 'Meter', ...body },
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function enable(templateId: string, user = owner): Promise<string> {
  const res = await stack.request('POST', `/api/v1/templates/${templateId}/provisioning`, { token: user.token });
  expect(res.status).toBe(200);
  expect(res.body.data).toEqual({ enabled: true, key: expect.stringMatching(/^pk_[A-Za-z0-9_-]{32}$/) });
  return res.body.data.key;
}

function provision(body: Record<string, unknown>) {
  return stack.request('POST', '/external/api/provision', { body });
}

describe('provisioning keys', () => {
  it('an admin enables a key (a new one each time, only its hash stored), GET shows enabled and never the key; viewers and editors may not', async () => {
    const templateId = await makeTemplate(owner, projectId);
    const before = await stack.request('GET', `/api/v1/templates/${templateId}`, { token: owner.token });
    expect(before.body.data.provisioning).toEqual({ enabled: false });
    const [editor, viewer] = [await registerUser(stack.request), await registerUser(stack.request)];
    await addMember(stack.request, owner, projectId, editor, 'editor');
    await addMember(stack.request, owner, projectId, viewer, 'viewer');
    for (const user of [editor, viewer]) {
      expect((await stack.request('POST', `/api/v1/templates/${templateId}/provisioning`, { token: user.token })).status).toBe(403);
    }
    const outsider = await registerUser(stack.request);
    expect((await stack.request('POST', `/api/v1/templates/${templateId}/provisioning`, { token: outsider.token })).status).toBe(404);

    const first = await enable(templateId);
    const second = await enable(templateId);
    expect(second).not.toBe(first);
    const read = await stack.request('GET', `/api/v1/templates/${templateId}`, { token: viewer.token });
    expect(read.body.data.provisioning).toEqual({ enabled: true });
    const listed = await stack.request('GET', `/api/v1/templates?projectId=${projectId}`, { token: owner.token });
    expect(listed.text).not.toContain(second);
    const stored = JSON.stringify(await stack.redis.hgetall(keys.templateProvisioning(templateId)));
    expect(stored).not.toContain(second);

    // The replaced key opens nothing; the new one does.
    const replaced = await provision({ key: first, serial: 'SN-REPLACED' });
    expect(replaced.status).toBe(401);
    expect(replaced.body.error.code).toBe('INVALID_PROVISIONING_KEY');
    expect((await provision({ key: second, serial: 'SN-REPLACED' })).status).toBe(201);
  });
});

describe('a device provisioning itself', () => {
  it('gets its token, logs in to the broker, its first value is stored; it has the template, its heartbeat and its serial', async () => {
    const templateId = await makeTemplate(owner, projectId, { heartbeatTimeoutS: 120, pins: PINS });
    const key = await enable(templateId);
    const res = await provision({ key, serial: 'SN-0001', name: 'Meter 1' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: { deviceId: expect.any(String), token: expect.stringMatching(/^dt_/), topicRoot: stack.config.MQTT_TOPIC_ROOT },
    });
    const { deviceId, token, topicRoot } = res.body.data;

    const client = await connectAsDevice(stack.config.MQTT_URL, { id: deviceId, token });
    clients.push(client);
    await client.publishAsync(`${topicRoot}/${deviceId}/pin/V0`, '21.5', { qos: 1 });
    await eventually(async () => {
      const latest = await stack.request('GET', `/api/v1/data/${deviceId}/V0/latest`, { token: owner.token });
      expect(latest.status).toBe(200);
      expect(latest.body.data.value).toBe('21.5');
    });

    const device = await stack.request('GET', `/api/v1/devices/${deviceId}`, { token: owner.token });
    expect(device.body.data).toMatchObject({ name: 'Meter 1', projectId, templateId, serial: 'SN-0001', heartbeatTimeoutS: null });
    await eventually(async () => expect(await twins.state(deviceId)).toMatchObject({ status: 'online', heartbeatTimeoutS: 120 }), 20_000);
    const bySerial = await stack.request('GET', `/api/v1/devices?projectId=${projectId}&serial=SN-0001`, { token: owner.token });
    expect(bySerial.body.data.devices.map((d: { id: string }) => d.id)).toEqual([deviceId]);
    const template = await stack.request('GET', `/api/v1/templates/${templateId}`, { token: owner.token });
    expect(template.body.data.deviceCount).toBe(1);
  });

  it('once per serial and template: again → 409 ALREADY_PROVISIONED, two racing first boots make one device', async () => {
    const templateId = await makeTemplate(owner, projectId);
    const key = await enable(templateId);
    expect((await provision({ key, serial: 'SN-0002' })).status).toBe(201);
    const again = await provision({ key, serial: 'SN-0002' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_PROVISIONED');

    const racing = await Promise.all(Array.from({ length: 5 }, () => provision({ key, serial: 'SN-RACE' })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const listed = await stack.request('GET', `/api/v1/devices?projectId=${projectId}&serial=SN-RACE`, { token: owner.token });
    expect(listed.body.data.total).toBe(1);
    // The same serial under another template is another device.
    const other = await makeTemplate(owner, projectId);
    expect((await provision({ key: await enable(other), serial: 'SN-0002' })).status).toBe(201);
  });

  it('a wrong key and a disabled key → 401 INVALID_PROVISIONING_KEY, nothing made; bad input → 400', async () => {
    const templateId = await makeTemplate(owner, projectId);
    const key = await enable(templateId);
    const wrong = await provision({ key: `${key}x`, serial: 'SN-0003' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('INVALID_PROVISIONING_KEY');
    expect((await stack.request('DELETE', `/api/v1/templates/${templateId}/provisioning`, { token: owner.token })).status).toBe(204);
    const disabled = await provision({ key, serial: 'SN-0003' });
    expect(disabled.status).toBe(401);
    expect(disabled.body.error.code).toBe('INVALID_PROVISIONING_KEY');
    const template = await stack.request('GET', `/api/v1/templates/${templateId}`, { token: owner.token });
    expect(template.body.data).toMatchObject({ deviceCount: 0, provisioning: { enabled: false } });
    const bad = await provision({ key, serial: '' });
    expect(bad.status).toBe(400);
  });

  it("a free account's device quota holds: of 12 first boots at once, 10 are made and 2 are 403 QUOTA_EXCEEDED", async () => {
    const free = await registerUser(stack.request);
    const freeProject = (await createProject(stack.request, free)).id;
    const key = await enable(await makeTemplate(free, freeProject), free);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => provision({ key, serial: `FREE-${i}` })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    const refused = answers.filter((a) => a.status === 403);
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.body.error).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { resource: 'devices', limit: 10 } });
    const me = await stack.request('GET', '/api/v1/auth/me', { token: free.token });
    expect(me.body.data.quotas.devices).toEqual({ limit: 10, used: 10 });
    // A refused serial was given back: with a slot free it provisions.
    const made = await stack.request('GET', `/api/v1/devices?projectId=${freeProject}&limit=1`, { token: free.token });
    await stack.request('DELETE', `/api/v1/devices/${made.body.data.devices[0].id}`, { token: free.token });
    const refusedSerial = `FREE-${statuses.indexOf(403)}`;
    expect((await provision({ key, serial: refusedSerial })).status).toBe(201);
  });
});

/** POST /external/api/provision from a loopback address of its own (127.x.y.z), so the throttle counts it alone. */
function provisionFrom(from: string, body: Record<string, unknown>): Promise<{ status: number; code?: string; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL('/external/api/provision', stack.baseUrl),
      { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => {
          const parsed = JSON.parse(text) as { error?: { code?: string } };
          resolve({ status: res.statusCode ?? 0, code: parsed.error?.code, retryAfter: res.headers['retry-after'] });
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('the throttle', () => {
  it('counts refused keys per address: past the limit 429 with Retry-After; right keys are not counted', async () => {
    const key = await enable(await makeTemplate(owner, projectId));
    const from = `127.${randomInt(1, 255)}.${randomInt(256)}.${randomInt(1, 255)}`;
    for (let i = 0; i < THROTTLE_LIMIT + 2; i++) expect((await provisionFrom(from, { key, serial: `OK-${i}` })).status).toBe(201);
    for (let i = 0; i < THROTTLE_LIMIT; i++) expect((await provisionFrom(from, { key: `pk_guess${i}`, serial: 'G' })).status).toBe(401);
    const throttled = await provisionFrom(from, { key, serial: 'OK-LATE' });
    expect(throttled).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED' });
    expect(Number(throttled.retryAfter)).toBeGreaterThanOrEqual(1);
    // Another address is not affected.
    const elsewhere = `127.${randomInt(1, 255)}.${randomInt(256)}.${randomInt(1, 255)}`;
    expect((await provisionFrom(elsewhere, { key, serial: 'OK-LATE' })).status).toBe(201);
  });
});
