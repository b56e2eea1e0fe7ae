/**
 * The device list's filters read the fleet index (store/fleet-index.ts), so each write that changes
 * a filtered field must move its entry in the same step: a tag removed is no longer found, a
 * firmware update moves the device between versions, a template change, a status, a value's
 * lastSeen (ingest), a delete and a project delete leave nothing behind; the migration indexes
 * devices made before the index.
 */
import { fleetIndexes, keys } from '../../common/redis-keys';
import { writeInfo } from '../../store/device-mirror';
import { storePoint } from '../../store/store-point';
import { indexFleet } from '../../scripts/migrate/index-fleet';
import { createDevice, createProject, mirrorStatus, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

let stack: Stack;
let owner: TestUser;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

async function found(projectId: string, query: string): Promise<string[]> {
  const res = await stack.request('GET', `/api/v1/devices?projectId=${projectId}&${query}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data.devices.map((d: { id: string }) => d.id);
}

/** Every fleet index entry of a project, in every shard. */
async function entriesOf(projectId: string): Promise<string[]> {
  const found = await Promise.all(fleetIndexes().map((key) => stack.redis.zrangebylex(key, `[${projectId}\u0000`, `(${projectId}\u0001`)));
  return found.flat();
}

test('a tag removed is not found by it, a tag added is', async () => {
  const projectId = (await createProject(stack.request, owner, 'Tags')).id;
  const { id } = await createDevice(stack.request, owner, projectId, 'Pump');
  const patch = (tags: string[]) => stack.request('PATCH', `/api/v1/devices/${id}`, { token: owner.token, body: { tags } });
  expect((await patch(['north', 'pumps'])).status).toBe(200);
  expect(await found(projectId, 'tag=north')).toEqual([id]);
  expect((await patch(['pumps', 'south'])).status).toBe(200);
  expect(await found(projectId, 'tag=north')).toEqual([]);
  expect(await found(projectId, 'tag=south')).toEqual([id]);
  expect(await found(projectId, 'tag=pumps')).toEqual([id]);
});

test('a firmware update moves the device from its old version to the new one', async () => {
  const projectId = (await createProject(stack.request, owner, 'Firmware moves')).id;
  const { id } = await createDevice(stack.request, owner, projectId, 'Sensor');
  expect(await writeInfo(stack.redis, id, { firmwareVersion: '1.0.0' })).toBe(true);
  expect(await found(projectId, 'firmwareVersion=1.0.0')).toEqual([id]);
  expect(await found(projectId, 'firmwareVersionLt=2.0.0')).toEqual([id]);
  expect(await writeInfo(stack.redis, id, { firmwareVersion: '2.0.0' })).toBe(true);
  expect(await found(projectId, 'firmwareVersion=1.0.0')).toEqual([]);
  expect(await found(projectId, 'firmwareVersionLt=2.0.0')).toEqual([]);
  expect(await found(projectId, 'firmwareVersion=2.0.0')).toEqual([id]);
});

test('a template given and taken away moves the device in and out of templateId', async () => {
  const projectId = (await createProject(stack.request, owner, 'Templates')).id;
  const made = await stack.request('POST', '/api/v1/templates', { token: owner.token, body: { projectId, name: 'Boiler' } });
  expect(made.status).toBe(201);
  const templateId: string = made.body.data.id;
  const { id } = await createDevice(stack.request, owner, projectId, 'Boiler 1');
  const patch = (body: { templateId: string | null }) => stack.request('PATCH', `/api/v1/devices/${id}`, { token: owner.token, body });
  expect((await patch({ templateId })).status).toBe(200);
  expect(await found(projectId, `templateId=${templateId}`)).toEqual([id]);
  expect((await patch({ templateId: null })).status).toBe(200);
  expect(await found(projectId, `templateId=${templateId}`)).toEqual([]);
});

test('status and lastSeen follow the mirror, and a device value moves lastSeen through ingest', async () => {
  const projectId = (await createProject(stack.request, owner, 'Liveness')).id;
  const { id } = await createDevice(stack.request, owner, projectId, 'Tracker');
  await mirrorStatus(stack.redis, id, 'online');
  expect(await found(projectId, 'status=online')).toEqual([id]);
  expect(await found(projectId, 'status=offline')).toEqual([]);
  await mirrorStatus(stack.redis, id, 'offline');
  expect(await found(projectId, 'status=online')).toEqual([]);
  expect(await found(projectId, 'status=offline')).toEqual([id]);

  const mark = new Date(Date.now() + 60_000);
  const iso = encodeURIComponent(mark.toISOString());
  expect(await found(projectId, `lastSeenAfter=${iso}`)).toEqual([]);
  expect(await found(projectId, `lastSeenBefore=${iso}`)).toEqual([id]);
  await storePoint(stack.redis, {
    deviceId: id,
    pin: 'V1',
    value: '1',
    at: new Date(mark.getTime() + 1_000),
    historyStream: keys.historyStream(stack.config.TEMPORAL_TASK_QUEUE),
    historyStreamMax: 1_000_000,
    towardDevice: false,
    fromDevice: true,
    wakeTtlS: 1,
    ruleStates: [],
    outbox: keys.outbox(stack.config.TEMPORAL_TASK_QUEUE),
  });
  expect(await found(projectId, `lastSeenAfter=${iso}`)).toEqual([id]);
  expect(await found(projectId, `lastSeenBefore=${iso}`)).toEqual([]);
});

test('a deleted device is gone from every filter, and a deleted project leaves no entry', async () => {
  const projectId = (await createProject(stack.request, owner, 'Deletes')).id;
  const ids: string[] = [];
  for (const name of ['Kept', 'Deleted']) {
    const { id } = await createDevice(stack.request, owner, projectId, name);
    expect((await stack.request('PATCH', `/api/v1/devices/${id}`, { token: owner.token, body: { tags: ['t'] } })).status).toBe(200);
    expect(await writeInfo(stack.redis, id, { firmwareVersion: '1.0.0' })).toBe(true);
    await mirrorStatus(stack.redis, id, 'online');
    ids.push(id);
  }
  const [kept, deleted] = ids as [string, string];
  expect((await stack.request('DELETE', `/api/v1/devices/${deleted}`, { token: owner.token })).status).toBe(204);
  for (const query of ['tag=t', 'firmwareVersion=1.0.0', 'status=online', 'q=e']) expect(await found(projectId, query)).toEqual([kept]);
  expect((await entriesOf(projectId)).filter((e) => e.endsWith(deleted))).toEqual([]);

  expect((await stack.request('DELETE', `/api/v1/projects/${projectId}`, { token: owner.token })).status).toBe(204);
  expect(await entriesOf(projectId)).toEqual([]);
});

test('the migration gives devices made before the index their entries, and changes nothing run again', async () => {
  const projectId = (await createProject(stack.request, owner, 'Before the index')).id;
  const { id } = await createDevice(stack.request, owner, projectId, 'Old timer');
  expect((await stack.request('PATCH', `/api/v1/devices/${id}`, { token: owner.token, body: { tags: ['legacy'] } })).status).toBe(200);
  const entries = await entriesOf(projectId);
  await stack.redis.zrem(keys.fleetIndex(id), ...entries);
  expect(await found(projectId, 'tag=legacy')).toEqual([]);
  await indexFleet(stack.redis);
  expect(await found(projectId, 'tag=legacy')).toEqual([id]);
  await indexFleet(stack.redis);
  expect((await entriesOf(projectId)).sort()).toEqual([...entries].sort());
});
