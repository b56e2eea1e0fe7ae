/**
 * Plan quotas (DESIGN §11, docs/limits.md "Quotas"): each create up to its limit, one more refused
 * with 403 QUOTA_EXCEEDED {resource, limit, used} and nothing created, a delete freeing the slot,
 * concurrent creates at the last slot, usage on /auth/me, and a plan change by the admin. The
 * free plan's limits are made small here by env, as an operator would.
 */
import { addMember, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import type { HttpResult } from '../helpers/http';
import { ADMIN_TOKEN, startStack, type Stack } from '../helpers/stack';

let stack: Stack;

const FREE = { projects: 2, devices: 3, members: 3, rules: 2, widgets: 2, templates: 5, apiKeys: 2 };

beforeAll(async () => {
  stack = await startStack({
    overrides: {
      QUOTA_FREE_PROJECTS: String(FREE.projects),
      QUOTA_FREE_DEVICES: String(FREE.devices),
      QUOTA_FREE_MEMBERS: String(FREE.members),
      QUOTA_FREE_RULES: String(FREE.rules),
      QUOTA_FREE_WIDGETS: String(FREE.widgets),
    },
  });
});

afterAll(async () => {
  await stack?.stop();
});

function expectQuotaExceeded(res: HttpResult, resource: string, limit: number, used: number): void {
  expect([res.status, res.body.error?.code, res.body.error?.details]).toEqual([403, 'QUOTA_EXCEEDED', { resource, limit, used }]);
  expect(res.body.error.message).toContain(String(limit));
}

async function quotas(user: TestUser): Promise<Record<string, { limit: number | null; used: number }>> {
  const me = await stack.request('GET', '/api/v1/auth/me', { token: user.token });
  expect(me.status).toBe(200);
  return me.body.data.quotas;
}

async function setPlan(user: TestUser, plan: string): Promise<void> {
  const res = await stack.request('PUT', `/api/v1/admin/users/${user.id}/plan`, { token: ADMIN_TOKEN, body: { plan } });
  expect(res.status).toBe(200);
}

const post = (user: TestUser, path: string, body: unknown) => stack.request('POST', path, { token: user.token, body });
const del = (user: TestUser, path: string) => stack.request('DELETE', path, { token: user.token });

const ruleBody = (projectId: string, deviceId: string) => ({
  projectId,
  deviceId,
  pin: 7,
  condition: 'gt',
  threshold: 20,
  message: 'Too hot: {value}',
  channels: ['inApp'],
});
const widgetBody = (projectId: string, deviceId: string) => ({
  type: 'GAUGE',
  projectId,
  deviceId,
  pin: 3,
  layout: { x: 0, y: 0, w: 2, h: 2 },
  config: {},
});

describe('GET /auth/me quotas', () => {
  it("shows every quota of the user's plan with its use; enterprise has no limits", async () => {
    const user = await registerUser(stack.request);
    expect(await quotas(user)).toEqual({
      projects: { limit: FREE.projects, used: 0 },
      devices: { limit: FREE.devices, used: 0 },
      members: { limit: FREE.members, used: 0 },
      rules: { limit: FREE.rules, used: 0 },
      widgets: { limit: FREE.widgets, used: 0 },
      templates: { limit: FREE.templates, used: 0 },
      apiKeys: { limit: FREE.apiKeys, used: 0 },
    });
    const project = await createProject(stack.request, user);
    await createDevice(stack.request, user, project.id);
    await addMember(stack.request, user, project.id, await registerUser(stack.request), 'viewer');
    expect(await quotas(user)).toMatchObject({ projects: { used: 1 }, devices: { used: 1 }, members: { used: 2 } });

    await setPlan(user, 'enterprise');
    const unlimited = await quotas(user);
    for (const quota of Object.values(unlimited)) expect(quota.limit).toBeNull();
    expect(unlimited.devices).toEqual({ limit: null, used: 1 });
  });
});

describe('each quota: the limit, one more refused, a delete frees the slot', () => {
  it('projects', async () => {
    const user = await registerUser(stack.request);
    const first = await createProject(stack.request, user, 'P1');
    await createProject(stack.request, user, 'P2');
    expectQuotaExceeded(await post(user, '/api/v1/projects', { name: 'P3' }), 'projects', 2, 2);
    const list = await stack.request('GET', '/api/v1/projects', { token: user.token });
    expect(list.body.data.projects).toHaveLength(2);

    expect((await del(user, `/api/v1/projects/${first.id}`)).status).toBe(204);
    expect((await post(user, '/api/v1/projects', { name: 'P3' })).status).toBe(201);
    // Being a member of someone else's project takes none of the user's own quota.
    const other = await registerUser(stack.request);
    await addMember(stack.request, other, (await createProject(stack.request, other)).id, user, 'viewer');
    expect((await quotas(user)).projects).toEqual({ limit: 2, used: 2 });
  });

  it('devices, counted over all the owner’s projects; a project delete frees its devices', async () => {
    const user = await registerUser(stack.request);
    const a = await createProject(stack.request, user, 'A');
    const b = await createProject(stack.request, user, 'B');
    await createDevice(stack.request, user, a.id);
    const second = await createDevice(stack.request, user, a.id);
    await createDevice(stack.request, user, b.id);
    expectQuotaExceeded(await post(user, '/api/v1/devices', { name: 'over', projectId: b.id }), 'devices', 3, 3);
    const listed = await stack.request('GET', '/api/v1/devices', { token: user.token });
    expect(listed.body.data.total).toBe(3);

    expect((await del(user, `/api/v1/devices/${second.id}`)).status).toBe(204);
    expect((await post(user, '/api/v1/devices', { name: 'again', projectId: b.id })).status).toBe(201);
    expect((await quotas(user)).devices).toEqual({ limit: 3, used: 3 });

    expect((await del(user, `/api/v1/projects/${a.id}`)).status).toBe(204);
    expect((await quotas(user)).devices).toEqual({ limit: 3, used: 2 });
    expect((await post(user, '/api/v1/devices', { name: 'after', projectId: b.id })).status).toBe(201);
  });

  it('members per project, the owner included', async () => {
    const owner = await registerUser(stack.request);
    const project = await createProject(stack.request, owner);
    const [m1, m2, m3] = [await registerUser(stack.request), await registerUser(stack.request), await registerUser(stack.request)];
    await addMember(stack.request, owner, project.id, m1, 'viewer');
    await addMember(stack.request, owner, project.id, m2, 'editor');
    const path = `/api/v1/projects/${project.id}/members`;
    expectQuotaExceeded(await post(owner, path, { email: m3.email, role: 'viewer' }), 'members', 3, 3);
    // Nothing of the refused member is left: the project is not theirs to see.
    expect((await stack.request('GET', '/api/v1/projects', { token: m3.token })).body.data.projects).toEqual([]);
    expect((await stack.request('GET', path, { token: owner.token })).body.data.members).toHaveLength(3);

    expect((await del(owner, `${path}/${m1.id}`)).status).toBe(204);
    expect((await post(owner, path, { email: m3.email, role: 'viewer' })).status).toBe(201);
    // Another project of the same owner has its own count.
    const other = await createProject(stack.request, owner, 'Other');
    await addMember(stack.request, owner, other.id, m1, 'viewer');
  });

  it('rules per project; a device delete frees its rules', async () => {
    const owner = await registerUser(stack.request);
    const project = await createProject(stack.request, owner);
    const device = await createDevice(stack.request, owner, project.id);
    const doomed = await createDevice(stack.request, owner, project.id);
    const first = await post(owner, '/api/v1/notifications/rules', ruleBody(project.id, device.id));
    expect(first.status).toBe(201);
    expect((await post(owner, '/api/v1/notifications/rules', ruleBody(project.id, doomed.id))).status).toBe(201);
    expectQuotaExceeded(await post(owner, '/api/v1/notifications/rules', ruleBody(project.id, device.id)), 'rules', 2, 2);
    const listed = await stack.request('GET', `/api/v1/notifications/rules?projectId=${project.id}`, { token: owner.token });
    expect(listed.body.data.rules).toHaveLength(2);

    expect((await del(owner, `/api/v1/notifications/rules/${first.body.data.id}`)).status).toBe(204);
    expect((await post(owner, '/api/v1/notifications/rules', ruleBody(project.id, device.id))).status).toBe(201);
    expect((await del(owner, `/api/v1/devices/${doomed.id}`)).status).toBe(204);
    expect((await post(owner, '/api/v1/notifications/rules', ruleBody(project.id, device.id))).status).toBe(201);
    expect((await quotas(owner)).rules).toEqual({ limit: 2, used: 2 });
  });

  it('widgets per project', async () => {
    const owner = await registerUser(stack.request);
    const project = await createProject(stack.request, owner);
    const device = await createDevice(stack.request, owner, project.id);
    const first = await post(owner, '/api/v1/widgets', widgetBody(project.id, device.id));
    expect(first.status).toBe(201);
    expect((await post(owner, '/api/v1/widgets', widgetBody(project.id, device.id))).status).toBe(201);
    expectQuotaExceeded(await post(owner, '/api/v1/widgets', widgetBody(project.id, device.id)), 'widgets', 2, 2);
    const listed = await stack.request('GET', `/api/v1/widgets?projectId=${project.id}`, { token: owner.token });
    expect(listed.body.data.widgets).toHaveLength(2);

    expect((await del(owner, `/api/v1/widgets/${first.body.data.id}`)).status).toBe(204);
    expect((await post(owner, '/api/v1/widgets', widgetBody(project.id, device.id))).status).toBe(201);
  });

  it('API keys', async () => {
    const user = await registerUser(stack.request);
    const first = await post(user, '/api/v1/api-keys', { name: 'one' });
    expect(first.status).toBe(201);
    expect((await post(user, '/api/v1/api-keys', { name: 'two' })).status).toBe(201);
    expectQuotaExceeded(await post(user, '/api/v1/api-keys', { name: 'three' }), 'apiKeys', 2, 2);
    expect((await stack.request('GET', '/api/v1/api-keys', { token: user.token })).body.data.apiKeys).toHaveLength(2);

    expect((await del(user, `/api/v1/api-keys/${first.body.data.id}`)).status).toBe(204);
    expect((await post(user, '/api/v1/api-keys', { name: 'three' })).status).toBe(201);
  });
});

describe('counted against the project owner’s plan', () => {
  it("an editor's creates take the owner's slots, under the owner's limits", async () => {
    const owner = await registerUser(stack.request);
    const editor = await registerUser(stack.request);
    await setPlan(editor, 'enterprise');
    const project = await createProject(stack.request, owner);
    await addMember(stack.request, owner, project.id, editor, 'editor');
    for (let i = 0; i < FREE.devices; i++) await createDevice(stack.request, editor, project.id);
    expectQuotaExceeded(await post(editor, '/api/v1/devices', { name: 'over', projectId: project.id }), 'devices', 3, 3);
    expect((await quotas(owner)).devices).toEqual({ limit: 3, used: 3 });
    expect((await quotas(editor)).devices).toEqual({ limit: null, used: 0 });
  });
});

describe('concurrent creates at the last slot', () => {
  it('exactly one of N device creates takes it', async () => {
    const user = await registerUser(stack.request);
    const project = await createProject(stack.request, user);
    for (let i = 0; i < FREE.devices - 1; i++) await createDevice(stack.request, user, project.id);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(user, '/api/v1/devices', { name: `racer-${i}`, projectId: project.id })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403, 403, 403, 403, 403, 403, 403]);
    for (const refused of answers.filter((a) => a.status === 403))
      expect(refused.body.error.details).toEqual({ resource: 'devices', limit: 3, used: 3 });
    expect((await stack.request('GET', '/api/v1/devices', { token: user.token })).body.data.total).toBe(FREE.devices);
  });

  it('exactly one of N project creates takes it', async () => {
    const user = await registerUser(stack.request);
    await createProject(stack.request, user);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(user, '/api/v1/projects', { name: `racer-${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403, 403, 403, 403, 403]);
    expect((await stack.request('GET', '/api/v1/projects', { token: user.token })).body.data.projects).toHaveLength(FREE.projects);
  });

  it('exactly one of N member adds takes it', async () => {
    const owner = await registerUser(stack.request);
    const project = await createProject(stack.request, owner);
    await addMember(stack.request, owner, project.id, await registerUser(stack.request), 'viewer');
    const candidates = await Promise.all(Array.from({ length: 5 }, () => registerUser(stack.request)));
    const answers = await Promise.all(
      candidates.map((c) => post(owner, `/api/v1/projects/${project.id}/members`, { email: c.email, role: 'viewer' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403, 403, 403, 403]);
  });
});

describe('a plan change by the admin', () => {
  it('changes the limits from the next create on', async () => {
    const user = await registerUser(stack.request);
    const project = await createProject(stack.request, user);
    for (let i = 0; i < FREE.devices; i++) await createDevice(stack.request, user, project.id);
    expectQuotaExceeded(await post(user, '/api/v1/devices', { name: 'over', projectId: project.id }), 'devices', 3, 3);

    await setPlan(user, 'pro');
    expect((await quotas(user)).devices).toEqual({ limit: 500, used: 3 });
    expect((await post(user, '/api/v1/devices', { name: 'pro', projectId: project.id })).status).toBe(201);

    // Back to free: what exists stays, and no more is made until it is under the limit again.
    await setPlan(user, 'free');
    expectQuotaExceeded(await post(user, '/api/v1/devices', { name: 'over', projectId: project.id }), 'devices', 3, 4);
  });
});
