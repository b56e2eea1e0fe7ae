import { createHash } from 'node:crypto';
import { startStack, type Stack } from '../helpers/stack';
import {
  connectAsDevice,
  createDevice,
  createProject,
  mirrorStatus,
  registerUser,
  setPlan,
  writeValue,
  type TestUser,
} from '../helpers/fixtures';
import { eventually, sleep } from '../helpers/wait';
import { keys } from '../../common/redis-keys';
import { scanKeys } from '../helpers/scan-keys';

let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  // More devices and projects than the free plan's quotas (docs/limits.md): paging, the create races.
  await setPlan(stack.request, owner, 'pro');
  projectId = (await createProject(stack.request, owner)).id;
});
afterAll(async () => {
  await stack.stop();
});

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('device create and read', () => {
  it('creates a device (201) with its dt_ token shown once, then masked', async () => {
    const res = await stack.request('POST', '/api/v1/devices', {
      token: owner.token,
      body: { name: 'Boiler', projectId, description: 'basement', tags: ['heat'] },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Boiler',
      description: 'basement',
      tags: ['heat'],
      templateId: null,
      heartbeatTimeoutS: null,
      serial: null,
      status: 'offline',
      lastSeen: null,
      projectId,
      token: expect.stringMatching(/^dt_[A-Za-z0-9_-]{32}$/),
      ipAddress: null,
      firmwareVersion: null,
      disconnectReason: null,
      createdAt: expect.any(String),
    });
    const { id, token } = res.body.data;

    const one = await stack.request('GET', `/api/v1/devices/${id}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body.data.token).toBe(`dt_…${token.slice(-4)}`);
    expect(one.text).not.toContain(token);

    const list = await stack.request('GET', `/api/v1/devices?projectId=${projectId}`, { token: owner.token });
    const item = list.body.data.devices.find((d: { id: string }) => d.id === id);
    expect(item).toMatchObject({ id, name: 'Boiler', status: 'offline', lastSeen: null, projectId, token: `dt_…${token.slice(-4)}` });
    expect(list.text).not.toContain(token);

    const stored = JSON.stringify(await stack.redis.hgetall(keys.device(id)));
    expect(stored).not.toContain(token);
  });

  it('validates the create body', async () => {
    const res = await stack.request('POST', '/api/v1/devices', { token: owner.token, body: { name: '', projectId: 'nope' } });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['body.name', 'body.projectId']);
  });

  it('hides devices and projects of other users (404)', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const stranger = await registerUser(stack.request);
    const get = await stack.request('GET', `/api/v1/devices/${device.id}`, { token: stranger.token });
    expect(get.status).toBe(404);
    expect(get.body.error.code).toBe('DEVICE_NOT_FOUND');
    const create = await stack.request('POST', '/api/v1/devices', { token: stranger.token, body: { name: 'x', projectId } });
    expect(create.status).toBe(404);
    expect(create.body.error.code).toBe('PROJECT_NOT_FOUND');
    const list = await stack.request('GET', `/api/v1/devices?projectId=${projectId}`, { token: stranger.token });
    expect(list.status).toBe(404);
    const own = await stack.request('GET', '/api/v1/devices', { token: stranger.token });
    expect(own.body.data).toEqual({ devices: [], total: 0, page: 1, limit: 20 });
  });

  it('reports status from the mirror: offline with nulls until the twin says otherwise', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const res = await stack.request('GET', `/api/v1/devices/${device.id}/status`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ status: 'offline', lastSeen: null, ipAddress: null, firmwareVersion: null });
  });
});

describe('device list paging and filters', () => {
  let pageProject: string;
  const ids: string[] = [];

  beforeAll(async () => {
    pageProject = (await createProject(stack.request, owner, 'Paging')).id;
    for (let i = 0; i < 25; i++) ids.push((await createDevice(stack.request, owner, pageProject, `d${i}`)).id);
    await mirrorStatus(stack.redis, ids[3]!, 'online');
  });

  it('pages with a default of 20 and reports total and page', async () => {
    const first = await stack.request('GET', `/api/v1/devices?projectId=${pageProject}`, { token: owner.token });
    expect(first.status).toBe(200);
    expect(first.body.data.total).toBe(25);
    expect(first.body.data.page).toBe(1);
    expect(first.body.data.devices).toHaveLength(20);
    const second = await stack.request('GET', `/api/v1/devices?projectId=${pageProject}&page=2`, { token: owner.token });
    expect(second.body.data.devices.map((d: { id: string }) => d.id)).toEqual(ids.slice(20));
    const small = await stack.request('GET', `/api/v1/devices?projectId=${pageProject}&limit=10&page=3`, { token: owner.token });
    expect(small.body.data.devices.map((d: { id: string }) => d.id)).toEqual(ids.slice(20, 25));
    const max = await stack.request('GET', `/api/v1/devices?projectId=${pageProject}&limit=100`, { token: owner.token });
    expect(max.body.data.devices).toHaveLength(25);
  });

  it.each(['limit=0', 'limit=101', 'page=0', 'limit=abc', 'status=sleeping', 'projectId=123'])(
    'rejects %s with 400 VALIDATION_ERROR',
    async (query) => {
      const res = await stack.request('GET', `/api/v1/devices?${query}`, { token: owner.token });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toHaveLength(1);
    },
  );

  it('filters by status', async () => {
    const online = await stack.request('GET', `/api/v1/devices?projectId=${pageProject}&status=online`, { token: owner.token });
    expect(online.body.data.total).toBe(1);
    expect(online.body.data.devices[0].id).toBe(ids[3]);
    expect(online.body.data.devices[0].status).toBe('online');
    const offline = await stack.request('GET', `/api/v1/devices?projectId=${pageProject}&status=offline`, { token: owner.token });
    expect(offline.body.data.total).toBe(24);
  });
});

describe('device changes', () => {
  it('patches name, description and tags', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const res = await stack.request('PATCH', `/api/v1/devices/${device.id}`, {
      token: owner.token,
      body: { name: 'Renamed', tags: ['a', 'b'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: device.id, name: 'Renamed', description: 'test device', tags: ['a', 'b'] });
    const again = await stack.request('GET', `/api/v1/devices/${device.id}`, { token: owner.token });
    expect(again.body.data.tags).toEqual(['a', 'b']);
    const bad = await stack.request('PATCH', `/api/v1/devices/${device.id}`, { token: owner.token, body: { tags: 'x' } });
    expect(bad.status).toBe(400);
  });

  it('regenerates the dt_ token; the old one stops resolving at once', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    expect(await stack.redis.get(`device:dt:${sha256(device.token)}`)).toBe(device.id);
    const res = await stack.request('POST', `/api/v1/devices/${device.id}/regenerate-token`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data.token).toMatch(/^dt_/);
    expect(res.body.data.token).not.toBe(device.token);
    expect(await stack.redis.get(`device:dt:${sha256(device.token)}`)).toBeNull();
    expect(await stack.redis.get(`device:dt:${sha256(res.body.data.token)}`)).toBe(device.id);
    const shown = await stack.request('GET', `/api/v1/devices/${device.id}`, { token: owner.token });
    expect(shown.body.data.token).toBe(`dt_…${res.body.data.token.slice(-4)}`);
  });

  it('deletes a device (204) with all its pin data and credentials', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    await writeValue(stack.request, owner, device.id, 0, '7');
    expect(await stack.history(device.id, 'V0')).toHaveLength(1);
    const simple = await stack.request('PUT', `/api/v1/devices/${device.id}/simple-api`, { token: owner.token, body: { enabled: true } });
    expect(await stack.redis.get(`device:iot:${sha256(simple.body.data.token)}`)).toBe(device.id);

    const res = await stack.request('DELETE', `/api/v1/devices/${device.id}`, { token: owner.token });
    expect(res.status).toBe(204);
    expect((await scanKeys(stack.redis, '*')).filter((k) => k.includes(device.id))).toEqual([]);
    expect(await stack.redis.get(`device:dt:${sha256(device.token)}`)).toBeNull();
    expect(await stack.redis.get(`device:iot:${sha256(simple.body.data.token)}`)).toBeNull();
    expect(await stack.redis.zscore(keys.projectDevices(projectId), device.id)).toBeNull();
    expect((await stack.request('GET', `/api/v1/devices/${device.id}`, { token: owner.token })).status).toBe(404);
    expect((await stack.request('DELETE', `/api/v1/devices/${device.id}`, { token: owner.token })).status).toBe(404);
  });
});

describe('simple-api settings', () => {
  it('is off with no token until enabled; the token is readable and regenerable', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const path = `/api/v1/devices/${device.id}/simple-api`;
    const initial = await stack.request('GET', path, { token: owner.token });
    expect(initial.status).toBe(200);
    expect(initial.body.data).toEqual({ enabled: false, token: null });

    const on = await stack.request('PUT', path, { token: owner.token, body: { enabled: true } });
    expect(on.status).toBe(200);
    expect(on.body.data).toEqual({ enabled: true, token: expect.stringMatching(/^iot_/) });
    const token: string = on.body.data.token;
    expect(JSON.stringify(await stack.redis.hgetall(keys.device(device.id)))).not.toContain(token);

    const read = await stack.request('GET', path, { token: owner.token });
    expect(read.body.data).toEqual({ enabled: true, token });

    const off = await stack.request('PUT', path, { token: owner.token, body: { enabled: false } });
    expect(off.body.data).toEqual({ enabled: false, token });

    const regenerated = await stack.request('POST', `${path}/regenerate-token`, { token: owner.token });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.data.token).toMatch(/^iot_/);
    expect(regenerated.body.data.token).not.toBe(token);
    expect(await stack.redis.get(`device:iot:${sha256(token)}`)).toBeNull();
    expect(await stack.redis.get(`device:iot:${sha256(regenerated.body.data.token)}`)).toBe(device.id);

    const bad = await stack.request('PUT', path, { token: owner.token, body: { enabled: 'yes' } });
    expect(bad.status).toBe(400);
  });

  it('is for editors: a viewer gets 403', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const viewer = await registerUser(stack.request);
    await stack.request('POST', `/api/v1/projects/${projectId}/members`, {
      token: owner.token,
      body: { email: viewer.email, role: 'viewer' },
    });
    const res = await stack.request('GET', `/api/v1/devices/${device.id}/simple-api`, { token: viewer.token });
    expect(res.status).toBe(403);
    const read = await stack.request('GET', `/api/v1/devices/${device.id}`, { token: viewer.token });
    expect(read.status).toBe(200);
  });
});

describe('device create racing its project delete', () => {
  /** Whether the broker lets the device log in with its `dt_` token. */
  const logsIn = (device: { id: string; token: string }): Promise<boolean> =>
    connectAsDevice(stack.config.MQTT_URL, device, { connectTimeout: 3000 }).then(
      async (client) => {
        await client.endAsync(true);
        return true;
      },
      (err: Error) => {
        if (/Not authorized|Bad username or password/i.test(err.message)) return false;
        throw err;
      },
    );

  it('leaves no device in the deleted project and no broker account that logs in (3 rounds of 20 creates beside one delete)', async () => {
    const created: { id: string; token: string; projectId: string }[] = [];
    for (let round = 0; round < 3; round++) {
      const project = await createProject(stack.request, owner, `Race ${round}`);
      // Creates a few ms apart, the delete as soon as the first one answered: some are done
      // before it, some in flight through it, some after.
      const creates = Array.from({ length: 20 }, (_, i) =>
        sleep(i * 3).then(() =>
          stack.request('POST', '/api/v1/devices', { token: owner.token, body: { name: `r${round}-${i}`, projectId: project.id } }),
        ),
      );
      const deleted = Promise.race(creates).then(() => stack.request('DELETE', `/api/v1/projects/${project.id}`, { token: owner.token }));
      const answers = await Promise.all(creates);
      expect((await deleted).status).toBe(204);
      for (const res of answers) {
        expect([res.status, res.body.error?.code]).toEqual(res.status === 201 ? [201, undefined] : [404, 'PROJECT_NOT_FOUND']);
        if (res.status === 201) created.push({ id: res.body.data.id, token: res.body.data.token, projectId: project.id });
      }
      // The project is gone whole: no device index brought back by a late create.
      expect(await stack.redis.exists(keys.projectDevices(project.id))).toBe(0);
    }

    for (const device of created) {
      const [shown, project] = await Promise.all([
        stack.request('GET', `/api/v1/devices/${device.id}`, { token: owner.token }),
        stack.request('GET', `/api/v1/projects/${device.projectId}`, { token: owner.token }),
      ]);
      // A device that answered 201 is readable while its project exists, and gone with it.
      expect({ device: shown.status, project: project.status }).toEqual({ device: 404, project: 404 });
      expect(await stack.redis.exists(keys.device(device.id))).toBe(0);
    }
    // Once the delete has settled (its broker removals and the refused creates' ones carried out),
    // no token a create showed still logs in.
    await eventually(async () => expect((await stack.metrics()).dds_outbox_pending).toBe(0), 15_000);
    const loggedIn = [];
    for (const device of created) if (await logsIn(device)) loggedIn.push(device.id);
    expect(loggedIn).toEqual([]);
    // Neither a create refused by the delete nor one retired with the project holds a quota slot.
    const [me, listed] = await Promise.all([
      stack.request('GET', '/api/v1/auth/me', { token: owner.token }),
      stack.request('GET', '/api/v1/devices', { token: owner.token }),
    ]);
    expect(me.body.data.quotas.devices.used).toBe(listed.body.data.total);
  }, 90_000);
});
