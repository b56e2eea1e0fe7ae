import { startStack, type Stack } from '../helpers/stack';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { enableSimpleApi, rateHeaders, setPlan } from '../external/fixtures';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'pro');
  projectId = (await createProject(stack.request, owner)).id;
});
afterAll(async () => {
  await stack.stop();
});

function expectError(res: { status: number; body: unknown }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
}

describe('simple interface authentication and gating (SPEC §4.7, §5)', () => {
  it('401 MISSING_TOKEN without a token (or an empty one), on every endpoint', async () => {
    for (const path of ['/get?pin=V1', '/update?pin=V1&value=1', '/get-all', '/is-online', '/get?token=&pin=V1']) {
      const res = await stack.request('GET', `/external/api${path}`);
      expectError(res, 401, 'MISSING_TOKEN');
      expect(rateHeaders(res.headers)).toMatchObject({ limit: 0, remaining: 0 });
    }
    expectError(await stack.request('POST', '/external/api/notify', { body: { message: 'x' } }), 401, 'MISSING_TOKEN');
    expectError(await stack.request('POST', '/external/api/batch-update', { body: { pins: [] } }), 401, 'MISSING_TOKEN');
  });

  it('401 INVALID_TOKEN for an unknown token, a dt_ token, and a repeated token parameter', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const token = await enableSimpleApi(stack.request, owner, device.id);
    expectError(await stack.request('GET', '/external/api/is-online?token=iot_unknown'), 401, 'INVALID_TOKEN');
    expectError(await stack.request('GET', `/external/api/is-online?token=${device.token}`), 401, 'INVALID_TOKEN');
    expectError(await stack.request('GET', `/external/api/is-online?token=${token}&token=${token}`), 401, 'INVALID_TOKEN');
  });

  it('401 INVALID_TOKEN for a regenerated token at once, and for the token of a deleted device', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const old = await enableSimpleApi(stack.request, owner, device.id);
    expect((await stack.request('GET', `/external/api/is-online?token=${old}`)).status).toBe(200);
    const regen = await stack.request('POST', `/api/v1/devices/${device.id}/simple-api/regenerate-token`, { token: owner.token });
    expectError(await stack.request('GET', `/external/api/is-online?token=${old}`), 401, 'INVALID_TOKEN');
    const fresh: string = regen.body.data.token;
    expect((await stack.request('GET', `/external/api/is-online?token=${fresh}`)).status).toBe(200);
    expect((await stack.request('DELETE', `/api/v1/devices/${device.id}`, { token: owner.token })).status).toBe(204);
    expectError(await stack.request('GET', `/external/api/is-online?token=${fresh}`), 401, 'INVALID_TOKEN');
  });

  it('403 SIMPLE_API_DISABLED once the device has the interface off; the refusal is not counted', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const token = await enableSimpleApi(stack.request, owner, device.id);
    const on = await stack.request('GET', `/external/api/is-online?token=${token}`);
    expect(on.status).toBe(200);
    const before = rateHeaders(on.headers).remaining;
    await enableSimpleApi(stack.request, owner, device.id, false);
    const off = await stack.request('GET', `/external/api/update?token=${token}&pin=V1&value=1`);
    expectError(off, 403, 'SIMPLE_API_DISABLED');
    expect(rateHeaders(off.headers)).toMatchObject({ limit: 60, remaining: before });
    expect(await stack.redis.hget(keys.devicePins(device.id), 'V1')).toBeNull();
  });

  it('403 PLAN_FEATURE_UNAVAILABLE at once when an owner whose token was in use moves to the Free plan', async () => {
    const paidOwner = await registerUser(stack.request);
    await setPlan(stack.request, paidOwner, 'pro');
    const project = await createProject(stack.request, paidOwner);
    const device = await createDevice(stack.request, paidOwner, project.id);
    const token = await enableSimpleApi(stack.request, paidOwner, device.id);
    expect((await stack.request('GET', `/external/api/is-online?token=${token}`)).status).toBe(200);
    expect((await stack.request('GET', `/external/api/is-online?token=${token}`)).status).toBe(200);
    await setPlan(stack.request, paidOwner, 'free');
    expectError(await stack.request('GET', `/external/api/update?token=${token}&pin=V1&value=1`), 403, 'PLAN_FEATURE_UNAVAILABLE');
    expect(await stack.redis.hget(keys.devicePins(device.id), 'V1')).toBeNull();
  });

  /** A Pro owner's device with its simple interface on, its token used twice (so this node remembers its path). */
  async function proTokenUsedTwice() {
    const own = await registerUser(stack.request);
    await setPlan(stack.request, own, 'pro');
    const project = await createProject(stack.request, own);
    const device = await createDevice(stack.request, own, project.id);
    const token = await enableSimpleApi(stack.request, own, device.id);
    expect(rateHeaders((await stack.request('GET', `/external/api/is-online?token=${token}`)).headers)).toMatchObject({
      limit: 60,
      remaining: 59,
    });
    expect(rateHeaders((await stack.request('GET', `/external/api/is-online?token=${token}`)).headers)).toMatchObject({
      limit: 60,
      remaining: 58,
    });
    return { own, device, token };
  }

  it("does not count the first request of a token regenerated after use: the owner's next request is one less", async () => {
    const { own, device, token: old } = await proTokenUsedTwice();
    const regen = await stack.request('POST', `/api/v1/devices/${device.id}/simple-api/regenerate-token`, { token: own.token });
    const refused = await stack.request('GET', `/external/api/update?token=${old}&pin=V1&value=1`);
    expectError(refused, 401, 'INVALID_TOKEN');
    expect(rateHeaders(refused.headers)).toMatchObject({ limit: 0, remaining: 0 });
    expectError(await stack.request('GET', `/external/api/update?token=${old}&pin=V1&value=2`), 401, 'INVALID_TOKEN');
    expect(await stack.redis.hget(keys.devicePins(device.id), 'V1')).toBeNull();
    const fresh = await stack.request('GET', `/external/api/is-online?token=${regen.body.data.token as string}`);
    expect(fresh.status).toBe(200);
    expect(rateHeaders(fresh.headers)).toMatchObject({ limit: 60, remaining: 57 });
  });

  it('applies a plan change of an owner whose token is in use to the very next request, counted once', async () => {
    const { own, token } = await proTokenUsedTwice();
    await setPlan(stack.request, own, 'pro_plus');
    const upgraded = await stack.request('GET', `/external/api/is-online?token=${token}`);
    expect(upgraded.status).toBe(200);
    expect(rateHeaders(upgraded.headers)).toMatchObject({ limit: 300, remaining: 297 });
    expect(rateHeaders((await stack.request('GET', `/external/api/is-online?token=${token}`)).headers)).toMatchObject({
      limit: 300,
      remaining: 296,
    });
  });

  it("403 PLAN_FEATURE_UNAVAILABLE when the owner of the device's project is on the Free plan", async () => {
    const freeOwner = await registerUser(stack.request);
    const project = await createProject(stack.request, freeOwner);
    const device = await createDevice(stack.request, freeOwner, project.id);
    const token = await enableSimpleApi(stack.request, freeOwner, device.id);
    const res = await stack.request('GET', `/external/api/is-online?token=${token}`);
    expectError(res, 403, 'PLAN_FEATURE_UNAVAILABLE');
    expect(rateHeaders(res.headers)).toMatchObject({ limit: 0, remaining: 0 });
    await setPlan(stack.request, freeOwner, 'pro_plus');
    const allowed = await stack.request('GET', `/external/api/is-online?token=${token}`);
    expect(allowed.status).toBe(200);
    expect(rateHeaders(allowed.headers)).toMatchObject({ limit: 300, remaining: 299 });
  });

  it('answers unknown paths and methods with 404 NOT_FOUND after authentication', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const token = await enableSimpleApi(stack.request, owner, device.id);
    expectError(await stack.request('GET', '/external/api/nothing'), 401, 'MISSING_TOKEN');
    const res = await stack.request('GET', `/external/api/nothing?token=${token}`);
    expectError(res, 404, 'NOT_FOUND');
    expect(rateHeaders(res.headers).limit).toBe(60);
    expectError(await stack.request('GET', `/external/api/notify?token=${token}`), 404, 'NOT_FOUND');
  });
});
