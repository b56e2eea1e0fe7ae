import { createNotificationStore } from '../../store/notifications';
import { createDevice, createProject, registerUser, thresholdNotification, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { keys } from '../../common/redis-keys';
import { scanKeys } from '../helpers/scan-keys';

let stack: Stack;
let owner: TestUser;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const layout = { x: 0, y: 0, w: 1, h: 1 };

async function widget(projectId: string, deviceId: string): Promise<string> {
  const res = await stack.request('POST', '/api/v1/widgets', {
    token: owner.token,
    body: { type: 'VALUE_DISPLAY', projectId, deviceId, pin: 1, layout, config: { label: 'Level' } },
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function rule(projectId: string, deviceId: string): Promise<string> {
  const res = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, deviceId, condition: 'offline', message: 'gone' },
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function notification(projectId: string, deviceId: string, read: boolean): Promise<string> {
  const record = { ...thresholdNotification(projectId), deviceId, read };
  await createNotificationStore(stack.redis).create(record);
  return record.id;
}

describe('cascade deletes', () => {
  it("deleting a device deletes its widgets (and their project set entries) but not other devices' widgets", async () => {
    const project = await createProject(stack.request, owner);
    const doomed = await createDevice(stack.request, owner, project.id);
    const kept = await createDevice(stack.request, owner, project.id);
    const doomedWidgets = [await widget(project.id, doomed.id), await widget(project.id, doomed.id)];
    const keptWidget = await widget(project.id, kept.id);

    expect((await stack.request('DELETE', `/api/v1/devices/${doomed.id}`, { token: owner.token })).status).toBe(204);

    for (const id of doomedWidgets) {
      expect(await stack.redis.exists(keys.widget(id))).toBe(0);
      expect((await stack.request('GET', `/api/v1/widgets/${id}`, { token: owner.token })).status).toBe(404);
    }
    expect(await stack.redis.exists(keys.deviceWidgets(doomed.id))).toBe(0);
    expect(await stack.redis.smembers(keys.projectWidgets(project.id))).toEqual([keptWidget]);
    const list = await stack.request('GET', `/api/v1/widgets?projectId=${project.id}`, { token: owner.token });
    expect(list.body.data.widgets.map((w: { id: string }) => w.id)).toEqual([keptWidget]);
  });

  it('deleting a project deletes its widgets, rules and notifications, leaving no keys behind', async () => {
    const project = await createProject(stack.request, owner);
    const device = await createDevice(stack.request, owner, project.id);
    const other = await createProject(stack.request, owner);
    const otherDevice = await createDevice(stack.request, owner, other.id);
    const records = [
      keys.widget(await widget(project.id, device.id)),
      keys.rule(await rule(project.id, device.id)),
      keys.notification(await notification(project.id, device.id, false)),
      keys.notification(await notification(project.id, device.id, true)),
    ];
    const survivors = [
      keys.widget(await widget(other.id, otherDevice.id)),
      keys.notification(await notification(other.id, otherDevice.id, false)),
    ];

    expect((await stack.request('DELETE', `/api/v1/projects/${project.id}`, { token: owner.token })).status).toBe(204);

    const leftovers = (await scanKeys(stack.redis, '*')).filter((k) => k.includes(project.id) || k.includes(device.id));
    expect(leftovers).toEqual([]);
    for (const key of records) expect(await stack.redis.exists(key)).toBe(0);
    for (const key of survivors) expect(await stack.redis.exists(key)).toBe(1);
    const remaining = await stack.request('GET', '/api/v1/notifications', { token: owner.token });
    expect(remaining.body.data.notifications.map((n: { projectId: string }) => n.projectId)).toEqual([other.id]);
  });
});
