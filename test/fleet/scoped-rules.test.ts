/**
 * Rules that cover a template, a tag or the whole project (DESIGN §12, issue 38) on the real
 * servers: they cover devices made before and after them, each firing names its device, a device
 * that leaves the scope is no longer covered, a template's heartbeat applies to its devices only,
 * and alarms stay one per rule and device.
 */
import type mqtt from 'mqtt';
import type { TwinClient } from '../../gateway/temporal/twin-client';
import { connectTwinClient } from '../helpers/twin-client';
import { connectAsDevice, createProject, registerUser, setPlan, writeValue, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

const DEFAULT_HEARTBEAT_S = 30;
let stack: Stack;
let closeTwins: () => Promise<void>;
let twins: TwinClient;
let owner: TestUser;
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack({
    worker: true,
    overrides: { THRESHOLD_NOTIFY_INTERVAL_S: '0', DEVICE_HEARTBEAT_TIMEOUT_S: String(DEFAULT_HEARTBEAT_S) },
  });
  ({ twins, close: closeTwins } = await connectTwinClient(stack));
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'pro');
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await closeTwins();
  await stack.stop();
});

interface Device {
  id: string;
  token: string;
}

interface Notice {
  deviceId: string;
  ruleId: string;
  type: string;
  message: string;
}

async function makeDevice(projectId: string, name: string, extra: Record<string, unknown> = {}): Promise<Device> {
  const res = await stack.request('POST', '/api/v1/devices', { token: owner.token, body: { projectId, name, ...extra } });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function makeTemplate(projectId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await stack.request('POST', '/api/v1/templates', { token: owner.token, body: { projectId, name: 'Kind', ...body } });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function makeRule(projectId: string, body: Record<string, unknown>) {
  const res = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, message: '{value}', ...body },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function notices(projectId: string, deviceId: string, type: string): Promise<Notice[]> {
  const res = await stack.request('GET', `/api/v1/notifications?projectId=${projectId}&deviceId=${deviceId}&type=${type}&limit=100`, {
    token: owner.token,
  });
  expect(res.status).toBe(200);
  return res.body.data.notifications;
}

async function connect(device: Device): Promise<mqtt.MqttClient> {
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  clients.push(client);
  return client;
}

const topic = (device: Device, leaf: string) => `${stack.config.MQTT_TOPIC_ROOT}/${device.id}/${leaf}`;

async function deviceView(deviceId: string): Promise<{ status: string; disconnectReason: string | null }> {
  return (await stack.request('GET', `/api/v1/devices/${deviceId}`, { token: owner.token })).body.data;
}

describe('rule scopes', () => {
  it('a project-wide offline rule made once covers the devices made before and after it, each notice naming its device', async () => {
    const projectId = (await createProject(stack.request, owner, 'Project-wide')).id;
    const before = await makeDevice(projectId, 'Before');
    // Its twin has loaded its rules (none) before the rule exists: it learns of it with no message (docs/architecture.md "Fleet rules").
    await eventually(async () => expect(await stack.redis.hget(keys.deviceState(before.id), 'status')).toBe('offline'));
    expect(await twins.state(before.id)).toMatchObject({ rules: [] });
    const rule = await makeRule(projectId, { condition: 'offline' });
    expect(rule).toMatchObject({ scope: 'project', deviceId: null, templateId: null, tag: null });
    const after = await makeDevice(projectId, 'After');

    for (const device of [before, after]) {
      const client = await connect(device);
      await client.publishAsync(topic(device, 'status'), 'online', { qos: 1 });
      await eventually(async () => expect((await deviceView(device.id)).status).toBe('online'));
      await client.publishAsync(topic(device, 'status'), 'offline', { qos: 1 });
    }
    for (const device of [before, after]) {
      const found = await eventually(async () => {
        const list = await notices(projectId, device.id, 'device_status');
        expect(list).toHaveLength(1);
        return list[0];
      });
      expect(found).toMatchObject({ deviceId: device.id, ruleId: rule.id, type: 'device_status', message: 'offline' });
    }
  });

  it('a template no_data rule fires once per silent device of the template, names it, and leaves other devices alone', async () => {
    const projectId = (await createProject(stack.request, owner, 'No data')).id;
    const templateId = await makeTemplate(projectId);
    const a = await makeDevice(projectId, 'A', { templateId });
    const b = await makeDevice(projectId, 'B', { templateId });
    const other = await makeDevice(projectId, 'Other');
    const rule = await makeRule(projectId, { templateId, condition: 'no_data', duration: 2 });
    expect(rule).toMatchObject({ scope: 'template', templateId, deviceId: null, tag: null });
    const late = await makeDevice(projectId, 'Late', { templateId });

    for (const device of [a, b, late]) {
      const found = await eventually(async () => {
        const list = await notices(projectId, device.id, 'no_data');
        expect(list).toHaveLength(1);
        return list[0];
      }, 15_000);
      expect(found).toMatchObject({ deviceId: device.id, ruleId: rule.id, type: 'no_data' });
    }
    // Once: the twin has looked again since it fired (the silence goes on), and fired no more.
    const firstCheck = await eventually(async () => {
      const timer = (await twins.state(a.id))?.noData.find((t) => t.ruleId === rule.id);
      expect(timer?.fired).toBe(true);
      return Date.parse(timer?.checkAt ?? '');
    });
    await eventually(async () => {
      const timer = (await twins.state(a.id))?.noData.find((t) => t.ruleId === rule.id);
      expect(Date.parse(timer?.checkAt ?? '')).toBeGreaterThan(firstCheck);
    }, 15_000);
    expect(await notices(projectId, a.id, 'no_data')).toHaveLength(1);
    expect((await twins.state(other.id))?.noData).toEqual([]);
    expect(await notices(projectId, other.id, 'no_data')).toEqual([]);
  });

  it('a tag gt rule fires only for tagged devices, stops when the tag is removed and starts when it is added', async () => {
    const projectId = (await createProject(stack.request, owner, 'Tagged')).id;
    const rule = await makeRule(projectId, { tag: 'boiler', condition: 'gt', pin: 1, threshold: 30 });
    expect(rule).toMatchObject({ scope: 'tag', tag: 'boiler', deviceId: null, templateId: null });
    const tagged = await makeDevice(projectId, 'Tagged', { tags: ['boiler'] });
    const plain = await makeDevice(projectId, 'Plain');
    const control = await makeDevice(projectId, 'Control', { tags: ['boiler', 'basement'] });

    await writeValue(stack.request, owner, tagged.id, 1, '31');
    await writeValue(stack.request, owner, plain.id, 1, '31');
    await eventually(async () => expect(await notices(projectId, tagged.id, 'threshold')).toHaveLength(1));

    const untagged = await stack.request('PATCH', `/api/v1/devices/${tagged.id}`, { token: owner.token, body: { tags: [] } });
    expect(untagged.status).toBe(200);
    for (const device of [tagged, control]) {
      await writeValue(stack.request, owner, device.id, 1, '20');
      await writeValue(stack.request, owner, device.id, 1, '35');
    }
    // The control device, still tagged, fires for the same values written after the tagged one's.
    await eventually(async () => expect(await notices(projectId, control.id, 'threshold')).toHaveLength(1));
    expect(await notices(projectId, tagged.id, 'threshold')).toHaveLength(1);
    expect(await notices(projectId, plain.id, 'threshold')).toEqual([]);

    await stack.request('PATCH', `/api/v1/devices/${plain.id}`, { token: owner.token, body: { tags: ['boiler'] } });
    await writeValue(stack.request, owner, plain.id, 1, '36');
    const found = await eventually(async () => {
      const list = await notices(projectId, plain.id, 'threshold');
      expect(list).toHaveLength(1);
      return list[0];
    });
    expect(found).toMatchObject({ deviceId: plain.id, ruleId: rule.id, message: '36' });
  });

  it("a template's 5 s heartbeat puts its devices offline after about 5 s while the others keep the default", async () => {
    const projectId = (await createProject(stack.request, owner, 'Heartbeats')).id;
    const templateId = await makeTemplate(projectId, { heartbeatTimeoutS: 5 });
    const fast = await makeDevice(projectId, 'Fast', { templateId });
    const slow = await makeDevice(projectId, 'Slow');
    const fastClient = await connect(fast);
    const slowClient = await connect(slow);
    await fastClient.publishAsync(topic(fast, 'pin/V0'), '1', { qos: 1 });
    await slowClient.publishAsync(topic(slow, 'pin/V0'), '1', { qos: 1 });
    const sentAt = Date.now();
    await eventually(async () => expect((await deviceView(fast.id)).status).toBe('online'));
    await eventually(async () => expect((await deviceView(slow.id)).status).toBe('online'));

    await eventually(
      async () => expect(await deviceView(fast.id)).toMatchObject({ status: 'offline', disconnectReason: 'timeout' }),
      15_000,
    );
    const silentFor = Date.now() - sentAt;
    expect(silentFor).toBeGreaterThanOrEqual(5_000);
    expect(silentFor).toBeLessThan(DEFAULT_HEARTBEAT_S * 1000);
    expect((await deviceView(slow.id)).status).toBe('online');
    expect(await twins.state(slow.id)).toMatchObject({ heartbeatTimeoutS: DEFAULT_HEARTBEAT_S });
    expect(await twins.state(fast.id)).toMatchObject({ heartbeatTimeoutS: 5 });
  });

  it("a heartbeat shortened from an hour to 5 s, a template's or a device's own, applies now to devices already online", async () => {
    const projectId = (await createProject(stack.request, owner, 'Shorter heartbeats')).id;
    const templateId = await makeTemplate(projectId, { heartbeatTimeoutS: 3600 });
    const ofTemplate = await makeDevice(projectId, 'Of the template', { templateId });
    const own = await makeDevice(projectId, 'Own heartbeat', { heartbeatTimeoutS: 3600 });
    for (const device of [ofTemplate, own]) {
      const client = await connect(device);
      await client.publishAsync(topic(device, 'pin/V0'), '1', { qos: 1 });
    }
    const sentAt = Date.now();
    for (const device of [ofTemplate, own]) {
      await eventually(async () => expect(await twins.state(device.id)).toMatchObject({ status: 'online', heartbeatTimeoutS: 3600 }));
    }

    const template = await stack.request('PATCH', `/api/v1/templates/${templateId}`, {
      token: owner.token,
      body: { heartbeatTimeoutS: 5 },
    });
    expect(template.status).toBe(200);
    const device = await stack.request('PATCH', `/api/v1/devices/${own.id}`, { token: owner.token, body: { heartbeatTimeoutS: 5 } });
    expect(device.status).toBe(200);

    for (const d of [ofTemplate, own]) {
      await eventually(
        async () => expect(await deviceView(d.id)).toMatchObject({ status: 'offline', disconnectReason: 'timeout' }),
        20_000,
      );
    }
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(5_000);
  });

  it('a project threshold rule keeps one alarm per device, with hysteresis, however often each crosses', async () => {
    const projectId = (await createProject(stack.request, owner, 'Alarms')).id;
    const rule = await makeRule(projectId, { condition: 'gt', pin: 2, threshold: 30, clearThreshold: 25 });
    const devices = [await makeDevice(projectId, 'One'), await makeDevice(projectId, 'Two')];
    for (const device of devices) {
      for (const value of ['31', '32', '20', '33']) await writeValue(stack.request, owner, device.id, 2, value);
    }
    for (const device of devices) {
      await eventually(async () => expect(await notices(projectId, device.id, 'threshold')).toHaveLength(2));
    }
    const alarms = await eventually(async () => {
      const res = await stack.request('GET', `/api/v1/alarms?projectId=${projectId}&limit=100`, { token: owner.token });
      const list: { id: string; deviceId: string; ruleId: string; state: string }[] = res.body.data.alarms;
      expect(list.filter((a) => a.state === 'active')).toHaveLength(2);
      return list;
    });
    expect(alarms.map((a) => a.id).sort()).toEqual(devices.map((d) => `${d.id}.${rule.id}`).sort());
    expect(alarms.every((a) => a.ruleId === rule.id)).toBe(true);
  });
});
