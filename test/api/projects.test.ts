import { startStack, type Stack } from '../helpers/stack';
import { addMember, createDevice, createProject, mirrorStatus, registerUser, writeValue, type TestUser } from '../helpers/fixtures';
import { keys } from '../../common/redis-keys';
import { scanKeys } from '../helpers/scan-keys';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.stop();
});

describe('projects', () => {
  let owner: TestUser;
  beforeAll(async () => {
    owner = await registerUser(stack.request);
  });

  it('creates a project (201) and lists it with deviceCount and role', async () => {
    const created = await stack.request('POST', '/api/v1/projects', {
      token: owner.token,
      body: { name: 'Farm', description: 'north field' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Farm',
      description: 'north field',
      deviceCount: 0,
      role: 'owner',
      createdAt: expect.any(String),
    });
    await createDevice(stack.request, owner, created.body.data.id);

    const list = await stack.request('GET', '/api/v1/projects', { token: owner.token });
    expect(list.status).toBe(200);
    const farm = list.body.data.projects.find((p: { id: string }) => p.id === created.body.data.id);
    expect(farm).toEqual({ ...created.body.data, deviceCount: 1 });

    const one = await stack.request('GET', `/api/v1/projects/${created.body.data.id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({ ...created.body.data, deviceCount: 1 });
  });

  it('patches name and description', async () => {
    const project = await createProject(stack.request, owner);
    const res = await stack.request('PATCH', `/api/v1/projects/${project.id}`, {
      token: owner.token,
      body: { name: 'Renamed' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe('Renamed');
    expect(res.body.data.description).toBe('test project');
    const empty = await stack.request('PATCH', `/api/v1/projects/${project.id}`, { token: owner.token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('rejects a project without a name', async () => {
    const res = await stack.request('POST', '/api/v1/projects', { token: owner.token, body: { description: 'x' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'body.name', problem: expect.any(String) }]);
  });

  it('hides a project from someone outside it (404, never 403)', async () => {
    const project = await createProject(stack.request, owner);
    const stranger = await registerUser(stack.request);
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await stack.request(method, `/api/v1/projects/${project.id}`, { token: stranger.token, body });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('PROJECT_NOT_FOUND');
    }
    const list = await stack.request('GET', '/api/v1/projects', { token: stranger.token });
    expect(list.body.data.projects).toEqual([]);
    const malformed = await stack.request('GET', '/api/v1/projects/not-a-uuid', { token: owner.token });
    expect(malformed.status).toBe(404);
  });

  it('requires a bearer token', async () => {
    const res = await stack.request('GET', '/api/v1/projects');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('deletes a project with its devices, pin data and members, leaving no keys behind', async () => {
    const project = await createProject(stack.request, owner);
    const member = await registerUser(stack.request);
    await addMember(stack.request, owner, project.id, member, 'viewer');
    const devices = [await createDevice(stack.request, owner, project.id), await createDevice(stack.request, owner, project.id)];
    for (const d of devices) {
      await writeValue(stack.request, owner, d.id, 1, '1');
      await mirrorStatus(stack.redis, d.id, 'offline');
    }

    const res = await stack.request('DELETE', `/api/v1/projects/${project.id}`, { token: owner.token });
    expect(res.status).toBe(204);

    const leftovers = (await scanKeys(stack.redis, '*')).filter((k) => k.includes(project.id) || devices.some((d) => k.includes(d.id)));
    expect(leftovers).toEqual([]);
    expect(await stack.redis.zscore(keys.userProjects(member.id), project.id)).toBeNull();
    expect((await stack.request('GET', `/api/v1/projects/${project.id}`, { token: owner.token })).status).toBe(404);
    expect((await stack.request('GET', `/api/v1/devices/${devices[0]!.id}`, { token: owner.token })).status).toBe(404);
  });
});

describe('members and roles', () => {
  let owner: TestUser;
  let projectId: string;
  const people: Record<'admin' | 'editor' | 'viewer', TestUser> = {} as never;

  beforeAll(async () => {
    owner = await registerUser(stack.request);
    projectId = (await createProject(stack.request, owner)).id;
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      people[role] = await registerUser(stack.request);
      await addMember(stack.request, owner, projectId, people[role], role);
    }
  });

  it('lists members with their roles and shows each member their role', async () => {
    const res = await stack.request('GET', `/api/v1/projects/${projectId}/members`, { token: people.viewer.token });
    expect(res.status).toBe(200);
    const roles = Object.fromEntries(res.body.data.members.map((m: { userId: string; role: string }) => [m.userId, m.role]));
    expect(roles).toEqual({ [owner.id]: 'owner', [people.admin.id]: 'admin', [people.editor.id]: 'editor', [people.viewer.id]: 'viewer' });
    const view = await stack.request('GET', `/api/v1/projects/${projectId}`, { token: people.editor.token });
    expect(view.body.data.role).toBe('editor');
  });

  it('lets editors create devices and refuses viewers with 403', async () => {
    const viewer = await stack.request('POST', '/api/v1/devices', {
      token: people.viewer.token,
      body: { name: 'x', projectId },
    });
    expect(viewer.status).toBe(403);
    expect(viewer.body.error.code).toBe('FORBIDDEN');
    const editor = await stack.request('POST', '/api/v1/devices', { token: people.editor.token, body: { name: 'x', projectId } });
    expect(editor.status).toBe(201);
  });

  it('lets admins manage members but not editors', async () => {
    const newcomer = await registerUser(stack.request);
    const byEditor = await stack.request('POST', `/api/v1/projects/${projectId}/members`, {
      token: people.editor.token,
      body: { email: newcomer.email, role: 'viewer' },
    });
    expect(byEditor.status).toBe(403);

    const added = await stack.request('POST', `/api/v1/projects/${projectId}/members`, {
      token: people.admin.token,
      body: { email: newcomer.email, role: 'viewer' },
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({ userId: newcomer.id, email: newcomer.email, name: 'Test User', role: 'viewer' });

    const again = await stack.request('POST', `/api/v1/projects/${projectId}/members`, {
      token: people.admin.token,
      body: { email: newcomer.email, role: 'viewer' },
    });
    expect(again.status).toBe(409);

    const promoted = await stack.request('PATCH', `/api/v1/projects/${projectId}/members/${newcomer.id}`, {
      token: people.admin.token,
      body: { role: 'editor' },
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body.data.role).toBe('editor');

    const toOwner = await stack.request('PATCH', `/api/v1/projects/${projectId}/members/${newcomer.id}`, {
      token: people.admin.token,
      body: { role: 'owner' },
    });
    expect(toOwner.status).toBe(400);

    const demoteOwner = await stack.request('PATCH', `/api/v1/projects/${projectId}/members/${owner.id}`, {
      token: people.admin.token,
      body: { role: 'viewer' },
    });
    expect(demoteOwner.status).toBe(403);

    const removed = await stack.request('DELETE', `/api/v1/projects/${projectId}/members/${newcomer.id}`, {
      token: people.admin.token,
    });
    expect(removed.status).toBe(204);
    const gone = await stack.request('GET', `/api/v1/projects/${projectId}`, { token: newcomer.token });
    expect(gone.status).toBe(404);
  });

  it('adds only existing users', async () => {
    const res = await stack.request('POST', `/api/v1/projects/${projectId}/members`, {
      token: owner.token,
      body: { email: 'nobody-here@example.com', role: 'viewer' },
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('USER_NOT_FOUND');
  });

  it('lets only the owner delete the project', async () => {
    const byAdmin = await stack.request('DELETE', `/api/v1/projects/${projectId}`, { token: people.admin.token });
    expect(byAdmin.status).toBe(403);
    const byAdminPatch = await stack.request('PATCH', `/api/v1/projects/${projectId}`, {
      token: people.admin.token,
      body: { description: 'admins may edit' },
    });
    expect(byAdminPatch.status).toBe(200);
    const byEditorPatch = await stack.request('PATCH', `/api/v1/projects/${projectId}`, {
      token: people.editor.token,
      body: { description: 'editors may not' },
    });
    expect(byEditorPatch.status).toBe(403);
  });
});
