import { randomUUID } from 'node:crypto';
import type mqtt from 'mqtt';
import type { TwinClient } from '../../gateway/temporal/twin-client';
import { connectTwinClient } from '../helpers/twin-client';
import { addMember, connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let closeTwins: () => Promise<void>;
let twins: TwinClient;
let owner: TestUser;
let viewer: TestUser;
let projectId: string;
let deviceId: string;
const deviceClients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  // Every crossing notifies here (not once a minute: test/ingest/twin-correctness.test.ts), so each rule change shows.
  stack = await startStack({ nodes: 2, worker: true, overrides: { THRESHOLD_NOTIFY_INTERVAL_S: '0' } });
  ({ twins, close: closeTwins } = await connectTwinClient(stack));
  owner = await registerUser(stack.request);
  viewer = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
  await addMember(stack.request, owner, projectId, viewer, 'viewer');
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
}, 60_000);

afterAll(async () => {
  await Promise.all(deviceClients.map((c) => c.endAsync()));
  await closeTwins();
  await stack.stop();
});

const RULES = '/api/v1/notifications/rules';

function ruleBody(overrides: Record<string, unknown> = {}) {
  return { projectId, deviceId, pin: 7, condition: 'gt', threshold: 20, message: 'Too hot: {value}', channels: ['inApp'], ...overrides };
}

async function createRule(overrides: Record<string, unknown> = {}) {
  const res = await stack.request('POST', RULES, { token: owner.token, body: ruleBody(overrides) });
  if (res.status !== 201) throw new Error(`create rule failed: ${res.status} ${res.text}`);
  return res.body.data;
}

function fields(res: { body: { error: { details: { field: string }[] } } }): string[] {
  return res.body.error.details.map((d) => d.field);
}

describe('rule CRUD', () => {
  it('creates rules (201) with exactly the DESIGN §8 and §12 fields and lists them by project, oldest first', async () => {
    const created = await stack.request('POST', RULES, { token: owner.token, body: ruleBody() });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        projectId,
        scope: 'device',
        deviceId,
        templateId: null,
        tag: null,
        pin: 7,
        condition: 'gt',
        threshold: 20,
        duration: null,
        message: 'Too hot: {value}',
        channels: ['inApp'],
        enabled: true,
        createdAt: expect.any(String),
      },
    });
    const noData = await createRule({ condition: 'no_data', pin: null, threshold: undefined, duration: 30, channels: ['inApp', 'email'] });
    expect(noData).toMatchObject({ condition: 'no_data', pin: null, threshold: null, duration: 30, channels: ['inApp', 'email'] });
    const offline = await createRule({ condition: 'offline', pin: 3, threshold: 1, duration: 9, channels: undefined, enabled: false });
    expect(offline).toMatchObject({
      condition: 'offline',
      pin: null,
      threshold: null,
      duration: null,
      channels: ['inApp'],
      enabled: false,
    });

    const list = await stack.request('GET', `${RULES}?projectId=${projectId}`, { token: viewer.token });
    expect(list.status).toBe(200);
    const ids = list.body.data.rules.map((r: { id: string }) => r.id);
    expect(ids.indexOf(created.body.data.id)).toBeLessThan(ids.indexOf(noData.id));
    expect(ids.indexOf(noData.id)).toBeLessThan(ids.indexOf(offline.id));
    expect(list.body.data.rules).toContainEqual(created.body.data);
    expect(await stack.redis.sismember(keys.deviceRules(deviceId), created.body.data.id)).toBe(1);
    expect(JSON.parse((await stack.redis.get(keys.rule(created.body.data.id))) as string)).toEqual(created.body.data);
  });

  it('validates each condition with its required fields, the channels and the message', async () => {
    const otherProject = await createProject(stack.request, owner);
    const foreignDevice = await createDevice(stack.request, owner, otherProject.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ pin: undefined }, 'body.pin'],
      [{ pin: null }, 'body.pin'],
      [{ threshold: undefined }, 'body.threshold'],
      [{ threshold: '20' }, 'body.threshold'],
      [{ pin: 256 }, 'body.pin'],
      [{ pin: 1.5 }, 'body.pin'],
      [{ condition: 'between' }, 'body.condition'],
      [{ condition: 'no_data' }, 'body.duration'],
      [{ condition: 'no_data', duration: 0 }, 'body.duration'],
      [{ condition: 'no_data', duration: 2.5 }, 'body.duration'],
      [{ channels: [] }, 'body.channels'],
      [{ channels: ['inApp', 'inApp'] }, 'body.channels'],
      [{ channels: ['sms'] }, 'body.channels.0'],
      [{ message: '' }, 'body.message'],
      [{ message: 'x'.repeat(501) }, 'body.message'],
      [{ projectId: undefined }, 'body.projectId'],
      [{ deviceId: foreignDevice.id }, 'body.deviceId'],
      [{ deviceId: randomUUID() }, 'body.deviceId'],
    ];
    for (const [overrides, field] of cases) {
      const res = await stack.request('POST', RULES, { token: owner.token, body: ruleBody(overrides) });
      expect({ overrides, status: res.status, code: res.body.error?.code }).toEqual({ overrides, status: 400, code: 'VALIDATION_ERROR' });
      expect(fields(res)).toContain(field);
    }
    expect((await createRule({ message: 'x'.repeat(500), condition: 'lte', threshold: -1.5 })).threshold).toBe(-1.5);
    expect(await stack.redis.scard(keys.deviceRules(foreignDevice.id))).toBe(0);
  });

  it('patches any field and revalidates the merged rule as a whole', async () => {
    const rule = await createRule();
    const patch = (body: unknown) => stack.request('PATCH', `${RULES}/${rule.id}`, { token: owner.token, body });

    const raised = await patch({ threshold: 30, channels: ['push'] });
    expect(raised.status).toBe(200);
    expect(raised.body.data).toEqual({ ...rule, threshold: 30, channels: ['push'] });

    const missingDuration = await patch({ condition: 'no_data' });
    expect(missingDuration.status).toBe(400);
    expect(fields(missingDuration)).toEqual(['body.duration']);
    const missingThreshold = await patch({ threshold: null });
    expect(fields(missingThreshold)).toEqual(['body.threshold']);

    const noData = await patch({ condition: 'no_data', duration: 60 });
    expect(noData.body.data).toEqual({ ...rule, condition: 'no_data', threshold: null, duration: 60, channels: ['push'] });
    const online = await patch({ condition: 'online', message: 'Back' });
    expect(online.body.data).toMatchObject({ condition: 'online', pin: null, threshold: null, duration: null, message: 'Back' });

    for (const body of [{}, { id: randomUUID() }, { projectId }, { createdAt: 'now' }]) {
      const res = await patch(body);
      expect(res.status).toBe(400);
    }
    const read = await stack.request('GET', `${RULES}?projectId=${projectId}`, { token: owner.token });
    expect(read.body.data.rules).toContainEqual(online.body.data);
  });

  it('moves a rule to another device of the project and refuses a device outside it', async () => {
    const rule = await createRule();
    const other = await createDevice(stack.request, owner, projectId);
    const moved = await stack.request('PATCH', `${RULES}/${rule.id}`, { token: owner.token, body: { deviceId: other.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.data.deviceId).toBe(other.id);
    expect(await stack.redis.sismember(keys.deviceRules(deviceId), rule.id)).toBe(0);
    expect(await stack.redis.sismember(keys.deviceRules(other.id), rule.id)).toBe(1);

    const foreign = await createDevice(stack.request, owner, (await createProject(stack.request, owner)).id);
    const refused = await stack.request('PATCH', `${RULES}/${rule.id}`, { token: owner.token, body: { deviceId: foreign.id } });
    expect(refused.status).toBe(400);
    expect(fields(refused)).toEqual(['body.deviceId']);
    expect(await stack.redis.sismember(keys.deviceRules(other.id), rule.id)).toBe(1);
  });

  it('deletes a rule (204) with its set memberships; a second delete is 404 RULE_NOT_FOUND', async () => {
    const rule = await createRule();
    const res = await stack.request('DELETE', `${RULES}/${rule.id}`, { token: owner.token });
    expect(res.status).toBe(204);
    expect(await stack.redis.exists(keys.rule(rule.id))).toBe(0);
    expect(await stack.redis.sismember(keys.deviceRules(deviceId), rule.id)).toBe(0);
    expect(await stack.redis.sismember(keys.projectRules(projectId), rule.id)).toBe(0);
    const again = await stack.request('DELETE', `${RULES}/${rule.id}`, { token: owner.token });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('RULE_NOT_FOUND');
  });

  it('lets viewers list but not write; outsiders get 404', async () => {
    const rule = await createRule();
    expect((await stack.request('POST', RULES, { token: viewer.token, body: ruleBody() })).status).toBe(403);
    expect((await stack.request('PATCH', `${RULES}/${rule.id}`, { token: viewer.token, body: { threshold: 1 } })).status).toBe(403);
    expect((await stack.request('DELETE', `${RULES}/${rule.id}`, { token: viewer.token })).status).toBe(403);

    const stranger = await registerUser(stack.request);
    const list = await stack.request('GET', `${RULES}?projectId=${projectId}`, { token: stranger.token });
    expect(list.body.error.code).toBe('PROJECT_NOT_FOUND');
    for (const [method, body] of [
      ['PATCH', { threshold: 1 }],
      ['DELETE', undefined],
    ] as const) {
      const res = await stack.request(method, `${RULES}/${rule.id}`, { token: stranger.token, body });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RULE_NOT_FOUND');
    }
    expect((await stack.request('POST', RULES, { token: stranger.token, body: ruleBody() })).status).toBe(404);
    expect((await stack.request('GET', RULES, { token: owner.token })).status).toBe(400);
    expect((await stack.request('GET', `${RULES}?projectId=${projectId}`)).status).toBe(401);
  });
});

describe('rule changes reach the twin', () => {
  it('the twin watches a no_data rule from its creation, follows patches and drops it when disabled or deleted', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const rule = await createRule({ deviceId: device.id, condition: 'no_data', pin: 4, duration: 600 });
    const watched = async () => (await twins.state(device.id))?.rules ?? [];
    expect(await watched()).toEqual([
      { id: rule.id, condition: 'no_data', pin: 'V4', duration: 600, message: rule.message, channels: ['inApp'] },
    ]);

    await stack.request('PATCH', `${RULES}/${rule.id}`, { token: owner.token, body: { duration: 900, pin: null } });
    expect(await watched()).toEqual([expect.objectContaining({ id: rule.id, pin: null, duration: 900 })]);
    await stack.request('PATCH', `${RULES}/${rule.id}`, { token: owner.token, body: { enabled: false } });
    expect(await watched()).toEqual([]);
    await stack.request('PATCH', `${RULES}/${rule.id}`, { token: owner.token, body: { enabled: true } });
    expect((await watched()).map((r) => r.id)).toEqual([rule.id]);
    await stack.request('DELETE', `${RULES}/${rule.id}`, { token: owner.token });
    expect(await watched()).toEqual([]);
  });

  it('an offline rule created through the API raises a device_status notification when the device goes offline', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const rule = await createRule({ deviceId: device.id, condition: 'offline', message: 'Lost contact: {value}' });
    const client = await connectAsDevice(stack.config.MQTT_URL, device);
    deviceClients.push(client);
    const statusTopic = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}/status`;
    const status = async () => (await stack.request('GET', `/api/v1/devices/${device.id}/status`, { token: owner.token })).body.data.status;

    await client.publishAsync(statusTopic, 'online', { qos: 1, retain: true });
    await eventually(async () => expect(await status()).toBe('online'));
    await client.publishAsync(statusTopic, 'offline', { qos: 1, retain: true });
    await eventually(async () => expect(await status()).toBe('offline'));

    const found = await eventually(async () => {
      const res = await stack.request('GET', `/api/v1/notifications?deviceId=${device.id}&type=device_status`, { token: owner.token });
      expect(res.body.data.total).toBe(1);
      return res.body.data.notifications[0];
    });
    expect(found).toEqual({
      id: expect.any(String),
      projectId,
      deviceId: device.id,
      ruleId: rule.id,
      type: 'device_status',
      title: expect.any(String),
      message: 'Lost contact: offline',
      priority: expect.any(String),
      channels: ['inApp'],
      read: false,
      createdAt: expect.any(String),
    });
  });
});

describe('rule changes reach the threshold rule cache of every gateway node', () => {
  it('a rule created on node 1 fires on node 2 with {value} replaced; patches and deletes apply there at once', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const [first, second] = stack.nodes as [Stack['nodes'][0], Stack['nodes'][0]];
    const post = async (value: string) => {
      const res = await second.request('POST', `/api/v1/data/${device.id}/7`, { token: owner.token, body: { value } });
      expect(res.status).toBe(201);
    };
    const thresholdMessages = async () => {
      const res = await first.request('GET', `/api/v1/notifications?deviceId=${device.id}&type=threshold`, { token: owner.token });
      return res.body.data.notifications.map((n: { message: string }) => n.message).sort();
    };
    const edgeState = (ruleId: string) => stack.redis.hget(keys.deviceRuleState(device.id), ruleId);

    await post('10'); // node 2 now caches "no rules" for the device
    const created = await first.request('POST', RULES, {
      token: owner.token,
      body: ruleBody({ deviceId: device.id, message: 'Hot: {value}' }),
    });
    expect(created.status).toBe(201);
    const ruleId: string = created.body.data.id;
    await post('25');
    expect(await edgeState(ruleId)).toBe('1');
    await eventually(async () => expect(await thresholdMessages()).toEqual(['Hot: 25']));

    const patched = await first.request('PATCH', `${RULES}/${ruleId}`, { token: owner.token, body: { threshold: 50 } });
    expect(patched.status).toBe(200);
    await post('30'); // inside the old threshold, outside the new one
    expect(await edgeState(ruleId)).toBe('0');
    await post('60');
    expect(await edgeState(ruleId)).toBe('1');
    await eventually(async () => expect(await thresholdMessages()).toEqual(['Hot: 25', 'Hot: 60']));

    expect((await first.request('DELETE', `${RULES}/${ruleId}`, { token: owner.token })).status).toBe(204);
    expect(await edgeState(ruleId)).toBeNull();
    await post('10');
    await post('70');
    expect(await edgeState(ruleId)).toBeNull();
    expect(await thresholdMessages()).toEqual(['Hot: 25', 'Hot: 60']);
  });
});
