/**
 * An API key automates the management API (DESIGN §2): `Authorization: Bearer dds_…`, on every
 * plan, with its owner's roles; it cannot manage API keys, log out or change the account, and a
 * revoked key is refused at once.
 */
import { createApiKey } from '../external/fixtures';
import { addMember, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

let stack: Stack;
let owner: TestUser;
let viewer: TestUser;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  viewer = await registerUser(stack.request);
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

test("a Free user's key lists, creates and writes with the owner's roles, and its use is recorded", async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const { id: keyId, key } = await createApiKey(stack.request, owner);
  const asKey = { token: key };

  const projects = await stack.request('GET', '/api/v1/projects', asKey);
  expect(projects.status).toBe(200);
  expect(projects.body.data.projects.map((p: { id: string }) => p.id)).toContain(projectId);
  const made = await stack.request('POST', '/api/v1/devices', { ...asKey, body: { name: 'By key', projectId } });
  expect(made.status).toBe(201);
  const written = await stack.request('POST', `/api/v1/data/${made.body.data.id}/3`, { ...asKey, body: { value: '7' } });
  expect(written.status).toBeLessThan(300);
  const latest = await stack.request('GET', `/api/v1/data/${made.body.data.id}/3/latest`, asKey);
  expect(latest.body.data).toMatchObject({ value: '7' });

  const keys = await stack.request('GET', '/api/v1/api-keys', { token: owner.token });
  expect(keys.body.data.apiKeys.find((k: { id: string }) => k.id === keyId).lastUsedAt).toEqual(expect.any(String));
});

test("a viewer's key has the viewer's role: it reads and may not write", async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  await addMember(stack.request, owner, projectId, viewer, 'viewer');
  const device = await createDevice(stack.request, owner, projectId);
  const { key } = await createApiKey(stack.request, viewer);
  expect((await stack.request('GET', `/api/v1/devices/${device.id}`, { token: key })).status).toBe(200);
  const refused = await stack.request('POST', '/api/v1/devices', { token: key, body: { name: 'No', projectId } });
  expect(refused.status).toBe(403);
});

test.each([
  ['POST', '/api/v1/api-keys', { name: 'more' }],
  ['DELETE', '/api/v1/api-keys/KEY', undefined],
  ['POST', '/api/v1/auth/logout', undefined],
  ['POST', '/api/v1/auth/verify-email/request', {}],
])('a key may not %s %s (403), and stays valid', async (method, path, body) => {
  const { id, key } = await createApiKey(stack.request, owner);
  const res = await stack.request(method, path.replace('KEY', id), { token: key, ...(body ? { body } : {}) });
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('FORBIDDEN');
  expect((await stack.request('GET', '/api/v1/auth/me', { token: key })).status).toBe(200);
  await stack.request('DELETE', `/api/v1/api-keys/${id}`, { token: owner.token });
});

test('a revoked or unknown key is 401 at once', async () => {
  const { id, key } = await createApiKey(stack.request, owner);
  expect((await stack.request('GET', '/api/v1/projects', { token: key })).status).toBe(200);
  expect((await stack.request('DELETE', `/api/v1/api-keys/${id}`, { token: owner.token })).status).toBe(204);
  const revoked = await stack.request('GET', '/api/v1/projects', { token: key });
  expect(revoked.status).toBe(401);
  expect(revoked.body.error.code).toBe('UNAUTHORIZED');
  expect((await stack.request('GET', '/api/v1/projects', { token: 'dds_not-a-key' })).status).toBe(401);
});
