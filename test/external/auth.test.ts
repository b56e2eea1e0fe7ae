import { startStack, type Stack } from '../helpers/stack';
import { addMember, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { createApiKey, minuteWindowEnd, rateHeaders, setPlan } from './fixtures';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let key: string;
let deviceId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'pro');
  key = (await createApiKey(stack.request, owner)).key;
  const project = await createProject(stack.request, owner);
  deviceId = (await createDevice(stack.request, owner, project.id)).id;
});
afterAll(async () => {
  await stack.stop();
});

const get = (path: string, apiKey?: string) =>
  stack.request('GET', `/external/api/v1${path}`, { headers: apiKey === undefined ? {} : { 'x-api-key': apiKey } });

function expectError(res: { status: number; body: unknown }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
}

describe('external REST authentication (SPEC §5)', () => {
  it('401 MISSING_API_KEY without the header, with the rate-limit headers at zero', async () => {
    const before = minuteWindowEnd();
    const res = await get('/devices');
    expectError(res, 401, 'MISSING_API_KEY');
    const headers = rateHeaders(res.headers);
    expect(headers.limit).toBe(0);
    expect(headers.remaining).toBe(0);
    expect([before, minuteWindowEnd()]).toContain(headers.reset);
  });

  it('401 MISSING_API_KEY for an empty header', async () => {
    expectError(await get('/devices', ''), 401, 'MISSING_API_KEY');
  });

  it.each(['nonsense', 'dds_not-a-real-key', 'Bearer dds_x'])('401 INVALID_API_KEY for %s', async (presented) => {
    expectError(await get('/devices', presented), 401, 'INVALID_API_KEY');
  });

  it('401 INVALID_API_KEY for a revoked key, at once', async () => {
    const revoked = await createApiKey(stack.request, owner);
    expect((await get('/devices', revoked.key)).status).toBe(200);
    const del = await stack.request('DELETE', `/api/v1/api-keys/${revoked.id}`, { token: owner.token });
    expect(del.status).toBe(204);
    expectError(await get('/devices', revoked.key), 401, 'INVALID_API_KEY');
  });

  it('401 INVALID_API_KEY for an expired key', async () => {
    const expiring = await createApiKey(stack.request, owner, new Date(Date.now() + 3_600_000).toISOString());
    expect((await get('/devices', expiring.key)).status).toBe(200);
    await stack.redis.hset(keys.apiKey(expiring.id), 'expiresAt', new Date(Date.now() - 1000).toISOString());
    expectError(await get('/devices', expiring.key), 401, 'INVALID_API_KEY');
  });

  it('403 PLAN_FEATURE_UNAVAILABLE on the Free plan; access follows the plan at once', async () => {
    const user = await registerUser(stack.request);
    const userKey = (await createApiKey(stack.request, user)).key;
    const refused = await get('/devices', userKey);
    expectError(refused, 403, 'PLAN_FEATURE_UNAVAILABLE');
    expect(rateHeaders(refused.headers)).toMatchObject({ limit: 0, remaining: 0 });

    for (const [plan, limit] of [
      ['pro', 60],
      ['pro_plus', 300],
      ['enterprise', 1000],
    ] as const) {
      await setPlan(stack.request, user, plan);
      const res = await get('/devices', userKey);
      expect(res.status).toBe(200);
      expect(rateHeaders(res.headers).limit).toBe(limit);
    }
    await setPlan(stack.request, user, 'free');
    expectError(await get('/devices', userKey), 403, 'PLAN_FEATURE_UNAVAILABLE');
  });

  it('answers unknown paths with 404 NOT_FOUND, but only after authentication', async () => {
    expectError(await get('/nothing-here'), 401, 'MISSING_API_KEY');
    const res = await get('/nothing-here', key);
    expectError(res, 404, 'NOT_FOUND');
    expect(rateHeaders(res.headers).limit).toBe(60);
    expectError(await stack.request('DELETE', `/external/api/v1/devices/${deviceId}`, { headers: { 'x-api-key': key } }), 404, 'NOT_FOUND');
  });

  it('checks the key before the body: a malformed body without a key is 401', async () => {
    const res = await stack.request('PUT', `/external/api/v1/devices/${deviceId}/pins/V1`, { rawBody: '{oops' });
    expectError(res, 401, 'MISSING_API_KEY');
  });

  it('records lastUsedAt, at most once a minute', async () => {
    const fresh = await createApiKey(stack.request, owner);
    expect(await stack.redis.hget(keys.apiKey(fresh.id), 'lastUsedAt')).toBeNull();
    await get('/devices', fresh.key);
    const first = await stack.redis.hget(keys.apiKey(fresh.id), 'lastUsedAt');
    expect(first).toEqual(expect.any(String));
    for (let i = 0; i < 3; i++) await get('/devices', fresh.key);
    expect(await stack.redis.hget(keys.apiKey(fresh.id), 'lastUsedAt')).toBe(first);
    const list = await stack.request('GET', '/api/v1/api-keys', { token: owner.token });
    expect(list.body.data.apiKeys.find((k: { id: string }) => k.id === fresh.id).lastUsedAt).toBe(first);
  });
});

describe('external REST device scope (SPEC §4.6 rule 3)', () => {
  it("404 DEVICE_NOT_FOUND for a device outside the key owner's projects, a missing one, and a malformed id", async () => {
    const stranger = await registerUser(stack.request);
    await setPlan(stack.request, stranger, 'pro');
    const strangerKey = (await createApiKey(stack.request, stranger)).key;
    expectError(await get(`/devices/${deviceId}`, strangerKey), 404, 'DEVICE_NOT_FOUND');
    expectError(await get(`/devices/${deviceId}/pins`, strangerKey), 404, 'DEVICE_NOT_FOUND');
    const put = await stack.request('PUT', `/external/api/v1/devices/${deviceId}/pins/V1`, {
      headers: { 'x-api-key': strangerKey },
      body: { value: '1' },
    });
    expectError(put, 404, 'DEVICE_NOT_FOUND');
    expectError(await get('/devices/00000000-0000-4000-8000-000000000000', key), 404, 'DEVICE_NOT_FOUND');
    expectError(await get('/devices/not-a-uuid', key), 404, 'DEVICE_NOT_FOUND');
    const list = await get('/devices', strangerKey);
    expect(list.body).toEqual({ success: true, data: [], meta: { total: 0, limit: 50, offset: 0 } });
  });

  it('reaches the devices of projects the owner is a member of; a viewer reads but may not write (403 FORBIDDEN)', async () => {
    const member = await registerUser(stack.request);
    await setPlan(stack.request, member, 'pro');
    const memberKey = (await createApiKey(stack.request, member)).key;
    const project = await createProject(stack.request, owner, 'Shared');
    const shared = await createDevice(stack.request, owner, project.id, 'Shared sensor');
    await addMember(stack.request, owner, project.id, member, 'viewer');

    const one = await get(`/devices/${shared.id}`, memberKey);
    expect(one.status).toBe(200);
    expect(one.body.data.id).toBe(shared.id);
    const list = await get('/devices', memberKey);
    expect(list.body.data.map((d: { id: string }) => d.id)).toEqual([shared.id]);
    const put = await stack.request('PUT', `/external/api/v1/devices/${shared.id}/pins/V1`, {
      headers: { 'x-api-key': memberKey },
      body: { value: '1' },
    });
    expectError(put, 403, 'FORBIDDEN');
    expect(await stack.redis.hget(keys.devicePins(shared.id), 'V1')).toBeNull();
  });
});
