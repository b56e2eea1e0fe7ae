import { randomUUID } from 'node:crypto';
import type { NotificationRecord } from '../../common/contracts';
import { createNotificationStore } from '../../store/notifications';
import { addMember, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { scanKeys } from '../helpers/scan-keys';

let stack: Stack;
let owner: TestUser;
let viewer: TestUser;
let editor: TestUser;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  viewer = await registerUser(stack.request);
  editor = await registerUser(stack.request);
}, 60_000);
afterAll(async () => {
  await stack.stop();
});

/** A project with the three members, one device and `count` notifications, oldest first. */
async function projectWithNotifications(count: number) {
  const projectId = (await createProject(stack.request, owner)).id;
  await addMember(stack.request, owner, projectId, viewer, 'viewer');
  await addMember(stack.request, owner, projectId, editor, 'editor');
  const deviceId = (await createDevice(stack.request, owner, projectId)).id;
  const records: NotificationRecord[] = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    projectId,
    deviceId,
    ruleId: null,
    type: 'device',
    title: 'Device Notification',
    message: `message ${i}`,
    priority: 'normal',
    channels: ['inApp'],
    read: false,
    createdAt: new Date(Date.now() - 3_600_000 + i * 1000).toISOString(),
  }));
  const store = createNotificationStore(stack.redis);
  for (const r of records) expect(await store.create(r)).toBe('created');
  return { projectId, deviceId, records };
}

async function list(user: TestUser, query: string) {
  const res = await stack.request('GET', `/api/v1/notifications?${query}`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body.data as { notifications: NotificationRecord[]; total: number; unread: number };
}

/** The ids a user sees as read, in a project (checked through every read path). */
async function readIds(user: TestUser, projectId: string, deviceId: string): Promise<string[]> {
  const all = await list(user, `projectId=${projectId}&limit=100`);
  const byDevice = await list(user, `projectId=${projectId}&deviceId=${deviceId}&limit=100`);
  const unreadOnly = await list(user, `projectId=${projectId}&unread=true&limit=100`);
  const read = all.notifications
    .filter((n) => n.read)
    .map((n) => n.id)
    .sort();
  expect(
    byDevice.notifications
      .filter((n) => n.read)
      .map((n) => n.id)
      .sort(),
  ).toEqual(read);
  expect(all.unread).toBe(all.total - read.length);
  expect(byDevice.unread).toBe(all.unread);
  expect(unreadOnly.total).toBe(all.unread);
  expect(unreadOnly.notifications.every((n) => !n.read && !read.includes(n.id))).toBe(true);
  for (const n of all.notifications) {
    const one = await stack.request('GET', `/api/v1/notifications/${n.id}`, { token: user.token });
    expect(one.body.data.read).toBe(read.includes(n.id));
  }
  return read;
}

describe('read state is per member', () => {
  it('one member marking a notification read leaves it unread for the others', async () => {
    const { projectId, deviceId, records } = await projectWithNotifications(3);
    const [first, second] = records as [NotificationRecord, NotificationRecord];

    const marked = await stack.request('PATCH', `/api/v1/notifications/${first.id}/read`, { token: viewer.token });
    expect(marked.status).toBe(200);
    expect(marked.body.data).toEqual({ ...first, read: true });

    expect(await readIds(viewer, projectId, deviceId)).toEqual([first.id]);
    expect(await readIds(owner, projectId, deviceId)).toEqual([]);
    expect(await readIds(editor, projectId, deviceId)).toEqual([]);

    const ownersOwn = await stack.request('PATCH', `/api/v1/notifications/${second.id}/read`, { token: owner.token });
    expect(ownersOwn.body.data.read).toBe(true);
    expect(await readIds(owner, projectId, deviceId)).toEqual([second.id]);
    expect(await readIds(viewer, projectId, deviceId)).toEqual([first.id]);
  });

  it("read-all marks only the caller's notifications and counts only the caller's unread ones", async () => {
    const { projectId, deviceId, records } = await projectWithNotifications(4);
    await stack.request('PATCH', `/api/v1/notifications/${(records[0] as NotificationRecord).id}/read`, { token: owner.token });

    const all = await stack.request('PATCH', `/api/v1/notifications/read-all?projectId=${projectId}`, { token: owner.token });
    expect(all.body.data).toEqual({ updated: 3 });
    expect((await readIds(owner, projectId, deviceId)).length).toBe(4);
    expect(await readIds(viewer, projectId, deviceId)).toEqual([]);
    expect((await list(editor, `projectId=${projectId}`)).unread).toBe(4);

    const viewerAll = await stack.request('PATCH', '/api/v1/notifications/read-all', { token: viewer.token });
    expect(viewerAll.body.data.updated).toBeGreaterThanOrEqual(4);
    expect((await list(editor, `projectId=${projectId}`)).unread).toBe(4);
  });

  it('a member added later sees the existing notifications unread; removal, delete and project delete leave no read state behind', async () => {
    const { projectId, deviceId, records } = await projectWithNotifications(3);
    await stack.request('PATCH', '/api/v1/notifications/read-all', { token: owner.token });
    const late = await registerUser(stack.request);
    await addMember(stack.request, owner, projectId, late, 'viewer');
    expect((await list(late, `projectId=${projectId}`)).unread).toBe(3);
    expect(await readIds(late, projectId, deviceId)).toEqual([]);
    await stack.request('PATCH', `/api/v1/notifications/${(records[1] as NotificationRecord).id}/read`, { token: late.token });
    expect(await readIds(late, projectId, deviceId)).toEqual([(records[1] as NotificationRecord).id]);

    const removed = await stack.request('DELETE', `/api/v1/projects/${projectId}/members/${late.id}`, { token: owner.token });
    expect(removed.status).toBe(204);
    expect((await scanKeys(stack.redis, `*${projectId}*`)).filter((k) => k.includes(late.id))).toEqual([]);

    const gone = records[2] as NotificationRecord;
    expect((await stack.request('DELETE', `/api/v1/notifications/${gone.id}`, { token: editor.token })).status).toBe(204);
    for (const user of [owner, viewer, editor]) {
      const seen = await list(user, `projectId=${projectId}`);
      expect(seen.total).toBe(2);
      expect(seen.unread).toBe(user === owner ? 0 : 2);
    }

    expect((await stack.request('DELETE', `/api/v1/projects/${projectId}`, { token: owner.token })).status).toBe(204);
    expect(await scanKeys(stack.redis, `*${projectId}*`)).toEqual([]);
  });
});
