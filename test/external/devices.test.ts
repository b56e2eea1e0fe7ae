import { startStack, type Stack } from '../helpers/stack';
import { createDevice, createProject, mirrorStatus, registerUser, type TestUser } from '../helpers/fixtures';
import { connectDevice, createApiKey, rateHeaders, setPlan, type DeviceConnection } from './fixtures';
import { eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let key: string;
let projectId: string;
const connections: DeviceConnection[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'enterprise');
  key = (await createApiKey(stack.request, owner)).key;
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await stack.stop();
});

const get = (path: string) => stack.request('GET', `/external/api/v1${path}`, { headers: { 'x-api-key': key } });

describe('GET /devices/{deviceId} and /status: the external views (SPEC §2.5, §2.6)', () => {
  it('shows a new device with nulls for what is not known yet', async () => {
    const res = await stack.request('POST', '/api/v1/devices', { token: owner.token, body: { name: 'Pump', projectId } });
    const created = res.body.data;
    const one = await get(`/devices/${created.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      success: true,
      data: {
        id: created.id,
        name: 'Pump',
        description: null,
        hardwareType: null,
        isOnline: false,
        lastSeenAt: null,
        createdAt: created.createdAt,
      },
    });
    expect(rateHeaders(one.headers)).toMatchObject({ limit: 1000, remaining: expect.any(Number) });

    const status = await get(`/devices/${created.id}/status`);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      success: true,
      data: { deviceId: created.id, isOnline: false, lastSeenAt: null, hardwareType: null, firmwareVersion: null, ipAddress: null },
    });
  });

  it('shows what the device reported once it is online', async () => {
    const device = await createDevice(stack.request, owner, projectId, 'Reporter');
    connections.push(await connectDevice(stack, device, { firmwareVersion: '1.4.2', ipAddress: '10.0.0.7', hardwareType: 'ESP32' }));
    const state = await stack.redis.hgetall(keys.deviceState(device.id));

    const one = await get(`/devices/${device.id}`);
    expect(one.body.data).toEqual({
      id: device.id,
      name: 'Reporter',
      description: 'test device',
      hardwareType: 'ESP32',
      isOnline: true,
      lastSeenAt: state.lastSeen ?? null,
      createdAt: expect.any(String),
    });
    const status = await get(`/devices/${device.id}/status`);
    expect(status.body.data).toEqual({
      deviceId: device.id,
      isOnline: true,
      lastSeenAt: state.lastSeen ?? null,
      hardwareType: 'ESP32',
      firmwareVersion: '1.4.2',
      ipAddress: '10.0.0.7',
    });
  });
});

describe('GET /devices: paging and the online filter (SPEC §4.6, §8)', () => {
  let listOwner: TestUser;
  let listKey: string;
  const ids: string[] = [];

  beforeAll(async () => {
    listOwner = await registerUser(stack.request);
    await setPlan(stack.request, listOwner, 'enterprise');
    listKey = (await createApiKey(stack.request, listOwner)).key;
    const first = (await createProject(stack.request, listOwner, 'First')).id;
    const second = (await createProject(stack.request, listOwner, 'Second')).id;
    for (let i = 0; i < 55; i++) ids.push((await createDevice(stack.request, listOwner, i < 30 ? first : second, `d${i}`)).id);
    for (const id of [ids[7]!, ids[40]!]) {
      // The twin (started by the outbox relay) mirrors offline when it starts: after that, the
      // test stands in for it and says online.
      await eventually(async () => expect(await stack.redis.hget(keys.deviceState(id), 'status')).toBe('offline'), 30_000);
      await mirrorStatus(stack.redis, id, 'online');
    }
  }, 60_000);

  const list = (query = '') => stack.request('GET', `/external/api/v1/devices${query}`, { headers: { 'x-api-key': listKey } });

  it("defaults to 50 from offset 0, across all the owner's projects, oldest first", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.meta).toEqual({ total: 55, limit: 50, offset: 0 });
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual(ids.slice(0, 50));
    expect(Object.keys(res.body.data[0]).sort()).toEqual([
      'createdAt',
      'description',
      'hardwareType',
      'id',
      'isOnline',
      'lastSeenAt',
      'name',
    ]);
  });

  it('takes limit and offset (any offset, not only whole pages), up to 100', async () => {
    const res = await list('?limit=10&offset=47');
    expect(res.body.meta).toEqual({ total: 55, limit: 10, offset: 47 });
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual(ids.slice(47, 55));
    const max = await list('?limit=100');
    expect(max.body.data).toHaveLength(55);
    const past = await list('?offset=60');
    expect(past.body).toEqual({ success: true, data: [], meta: { total: 55, limit: 50, offset: 60 } });
  });

  it('filters by online=true and online=false', async () => {
    const online = await list('?online=true');
    expect(online.body.meta).toEqual({ total: 2, limit: 50, offset: 0 });
    expect(online.body.data.map((d: { id: string; isOnline: boolean }) => [d.id, d.isOnline])).toEqual([
      [ids[7], true],
      [ids[40], true],
    ]);
    const offline = await list('?online=false&limit=5&offset=1');
    expect(offline.body.meta).toEqual({ total: 53, limit: 5, offset: 1 });
    expect(offline.body.data.every((d: { isOnline: boolean }) => !d.isOnline)).toBe(true);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'online=yes'])('rejects %s with 400 VALIDATION_ERROR', async (query) => {
    const res = await list(`?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toHaveLength(1);
  });
});
