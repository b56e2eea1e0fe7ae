import { randomUUID } from 'node:crypto';
import type { NotificationRecord } from '../../common/contracts';
import { createNotificationQueries } from '../../store/notification-queries';
import { createNotificationStore } from '../../store/notifications';
import { addMember, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let viewer: TestUser;
let editor: TestUser;
let stranger: TestUser;
let p1: string;
let p2: string;
let d1: string;
let d2: string;
let d3: string;
let foreign: NotificationRecord;
/** Every record seeded for the owner's two projects: the model the API answers are checked against. */
let seeded: NotificationRecord[];
/** The model of each member's own read state: user id → ids that member has read. */
const readBy = new Map<string, Set<string>>();

type Kind = NotificationRecord['type'];
const TYPES: Kind[] = ['threshold', 'device_status', 'no_data', 'device'];
/** Recent enough to be well inside the retention (NOTIFICATION_RETENTION_DAYS). */
const base = Date.now() - 86_400_000;

/** `read`: whether the seed marks it read for the owner (every other member starts unread). */
function record(projectId: string, deviceId: string, type: Kind, at: number, read: boolean): NotificationRecord {
  return {
    id: randomUUID(),
    projectId,
    deviceId,
    ruleId: randomUUID(),
    type,
    title: `${type} title`,
    message: `${type} at ${at}`,
    priority: 'normal',
    channels: ['inApp'],
    read,
    createdAt: new Date(at).toISOString(),
  };
}

function readSet(user: TestUser): Set<string> {
  const set = readBy.get(user.id) ?? new Set<string>();
  readBy.set(user.id, set);
  return set;
}

/** Creates the records (unread for every member), then marks those with `read` read for the owner. */
async function seed(records: NotificationRecord[]): Promise<void> {
  const store = createNotificationStore(stack.redis);
  const outcomes = await Promise.all(records.map((r) => store.create(r)));
  expect(outcomes.every((o) => o === 'created')).toBe(true);
  const queries = createNotificationQueries(stack.redis);
  await Promise.all(records.filter((r) => r.read).map((r) => queries.markRead(r, owner.id)));
  for (const r of records) if (r.read) readSet(owner).add(r.id);
}

/** The records with `read` as one member sees them. */
function seenBy(user: TestUser, records: NotificationRecord[]): NotificationRecord[] {
  return records.map((r) => ({ ...r, read: readSet(user).has(r.id) }));
}

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  viewer = await registerUser(stack.request);
  editor = await registerUser(stack.request);
  stranger = await registerUser(stack.request);
  p1 = (await createProject(stack.request, owner)).id;
  p2 = (await createProject(stack.request, owner)).id;
  await addMember(stack.request, owner, p1, viewer, 'viewer');
  await addMember(stack.request, owner, p1, editor, 'editor');
  d1 = (await createDevice(stack.request, owner, p1)).id;
  d2 = (await createDevice(stack.request, owner, p1)).id;
  d3 = (await createDevice(stack.request, owner, p2)).id;
  // 30 records over both projects; the ones of p2 interleave in time with those of p1.
  seeded = Array.from({ length: 30 }, (_, i) => {
    const [projectId, deviceId] = i % 3 === 2 ? [p2, d3] : [p1, i % 2 ? d1 : d2];
    return record(projectId, deviceId, TYPES[Math.floor(i / 3) % TYPES.length] as Kind, base + i * 1000, i % 4 === 0);
  });
  await seed([...seeded].reverse());
  const strangerProject = await createProject(stack.request, stranger);
  const strangerDevice = await createDevice(stack.request, stranger, strangerProject.id);
  foreign = record(strangerProject.id, strangerDevice.id, 'threshold', base, false);
  await seed([foreign]);
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const newestFirst = (a: NotificationRecord, b: NotificationRecord) => Date.parse(b.createdAt) - Date.parse(a.createdAt);

interface Filter {
  projectId?: string;
  deviceId?: string;
  type?: Kind;
  unread?: boolean;
  page?: number;
  limit?: number;
}

/** What GET /notifications must answer a user for a filter, computed from the seeded model. */
function expected(user: TestUser, all: NotificationRecord[], f: Filter) {
  const scoped = seenBy(user, all)
    .filter((r) => (f.projectId ? r.projectId === f.projectId : true))
    .filter((r) => (f.deviceId ? r.deviceId === f.deviceId : true))
    .filter((r) => (f.type ? r.type === f.type : true))
    .sort(newestFirst);
  const matching = f.unread ? scoped.filter((r) => !r.read) : scoped;
  const page = f.page ?? 1;
  const limit = f.limit ?? 20;
  return {
    notifications: matching.slice((page - 1) * limit, page * limit),
    total: matching.length,
    page,
    limit,
    unread: scoped.filter((r) => !r.read).length,
  };
}

async function list(user: TestUser, f: Filter) {
  const query = new URLSearchParams(Object.entries(f).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return stack.request('GET', `/api/v1/notifications${query ? `?${query}` : ''}`, { token: user.token });
}

describe('listing notifications', () => {
  it("answers {notifications, total, page, limit, unread}, newest first, 20 by default, across the caller's projects", async () => {
    const res = await list(owner, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: expected(owner, seeded, {}) });
    expect(res.body.data.notifications).toHaveLength(20);
    expect(res.body.data.total).toBe(30);
  });

  /** Filters are functions: the projects and devices exist only once beforeAll has run. */
  it.each<[string, () => Filter]>([
    ['page 2', () => ({ page: 2 })],
    ['a small page in the middle', () => ({ limit: 7, page: 3 })],
    ['a page past the end', () => ({ page: 9 })],
    ['one project', () => ({ projectId: p2 })],
    ['unread only', () => ({ unread: true })],
    ['unread=false (no filter)', () => ({ unread: false })],
    ['unread in one project, paged', () => ({ projectId: p1, unread: true, limit: 5, page: 2 })],
    ['one device', () => ({ deviceId: d1 })],
    ['one device, unread only', () => ({ deviceId: d1, unread: true })],
    ['one type', () => ({ type: 'no_data' })],
    ['type and project', () => ({ type: 'threshold', projectId: p2 })],
    ['the type of notify-endpoint records', () => ({ type: 'device' })],
    ['device, type and page', () => ({ deviceId: d2, type: 'device_status', limit: 2, page: 2 })],
  ])('filters and pages: %s', async (_name, filter) => {
    const f = filter();
    const res = await list(owner, f);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(expected(owner, seeded, f));
    expect(res.body.data.total).toBeGreaterThan(0);
  });

  it("shows no one else's notifications and hides projects the caller is not in", async () => {
    const own = await list(stranger, {});
    expect(own.body.data.notifications).toEqual([foreign]);
    const other = await list(stranger, { projectId: p1 });
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('PROJECT_NOT_FOUND');
    const asViewer = await list(viewer, {});
    expect(asViewer.body.data).toEqual(expected(viewer, seeded, { projectId: p1 }));
    expect(asViewer.body.data.unread).toBe(asViewer.body.data.total);
    const byDevice = await list(stranger, { deviceId: d1 });
    expect(byDevice.body.data.total).toBe(0);
    const mismatched = await list(owner, { projectId: p2, deviceId: d1 });
    expect(mismatched.body.data).toEqual({ notifications: [], total: 0, page: 1, limit: 20, unread: 0 });
  });

  it('rejects bad query parameters with 400 VALIDATION_ERROR naming them', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['limit=ten', 'query.limit'],
      ['page=0', 'query.page'],
      ['type=bogus', 'query.type'],
      ['unread=maybe', 'query.unread'],
      ['projectId=nope', 'query.projectId'],
      ['deviceId=nope', 'query.deviceId'],
    ];
    for (const [query, field] of cases) {
      const res = await stack.request('GET', `/api/v1/notifications?${query}`, { token: owner.token });
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    }
    expect((await stack.request('GET', '/api/v1/notifications')).status).toBe(401);
  });

  it('leaves /notifications/rules to the rules API', async () => {
    const rules = await stack.request('GET', `/api/v1/notifications/rules?projectId=${p1}`, { token: owner.token });
    expect(rules.status).toBe(200);
    expect(rules.body.data).toEqual({ rules: [] });
    const noProject = await stack.request('GET', '/api/v1/notifications/rules', { token: owner.token });
    expect(noProject.status).toBe(400);
    expect(noProject.body.error.details[0].field).toBe('query.projectId');
  });
});

describe('one notification', () => {
  it('reads one by id; outsiders and unknown ids get 404 NOTIFICATION_NOT_FOUND', async () => {
    const target = seeded.find((r) => r.projectId === p1) as NotificationRecord;
    expect(target.read).toBe(true);
    const res = await stack.request('GET', `/api/v1/notifications/${target.id}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...target, read: false });
    const asOwner = await stack.request('GET', `/api/v1/notifications/${target.id}`, { token: owner.token });
    expect(asOwner.body.data).toEqual(target);
    for (const path of [`/api/v1/notifications/${target.id}`, `/api/v1/notifications/${randomUUID()}`]) {
      const hidden = await stack.request('GET', path, { token: stranger.token });
      expect(hidden.status).toBe(404);
      expect(hidden.body.error.code).toBe('NOTIFICATION_NOT_FOUND');
    }
    expect((await stack.request('GET', '/api/v1/notifications/not-a-uuid', { token: owner.token })).status).toBe(404);
    const p2Record = seeded.find((r) => r.projectId === p2) as NotificationRecord;
    expect((await stack.request('GET', `/api/v1/notifications/${p2Record.id}`, { token: viewer.token })).status).toBe(404);
  });

  it("marks one read (viewers may) for the caller only: the caller's unread count drops once", async () => {
    const target = seeded.find((r) => r.projectId === p1 && !r.read) as NotificationRecord;
    const before = (await list(viewer, { projectId: p1 })).body.data.unread;
    const ownerBefore = (await list(owner, { projectId: p1 })).body.data;
    const res = await stack.request('PATCH', `/api/v1/notifications/${target.id}/read`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ...target, read: true });
    readSet(viewer).add(target.id);

    const after = await list(viewer, { projectId: p1 });
    expect(after.body.data.unread).toBe(before - 1);
    expect(after.body.data).toEqual(expected(viewer, seeded, { projectId: p1 }));
    expect((await list(owner, { projectId: p1 })).body.data).toEqual(ownerBefore);
    expect(await stack.redis.zscore(keys.projectMemberUnreadNotifications(p1, viewer.id), target.id)).toBeNull();
    expect(await stack.redis.zscore(keys.projectMemberUnreadNotifications(p1, owner.id), target.id)).not.toBeNull();

    const again = await stack.request('PATCH', `/api/v1/notifications/${target.id}/read`, { token: viewer.token });
    expect(again.body.data.read).toBe(true);
    expect((await list(viewer, { projectId: p1 })).body.data.unread).toBe(before - 1);

    const hidden = await stack.request('PATCH', `/api/v1/notifications/${target.id}/read`, { token: stranger.token });
    expect(hidden.body.error.code).toBe('NOTIFICATION_NOT_FOUND');
  });

  it("deletes one (editors only, 204); it leaves the project's set and every member's unread set", async () => {
    const target = seeded.find((r) => r.projectId === p1 && !r.read) as NotificationRecord;
    const asViewer = await stack.request('DELETE', `/api/v1/notifications/${target.id}`, { token: viewer.token });
    expect(asViewer.status).toBe(403);
    const asStranger = await stack.request('DELETE', `/api/v1/notifications/${target.id}`, { token: stranger.token });
    expect(asStranger.body.error.code).toBe('NOTIFICATION_NOT_FOUND');

    const res = await stack.request('DELETE', `/api/v1/notifications/${target.id}`, { token: editor.token });
    expect(res.status).toBe(204);
    seeded = seeded.filter((r) => r.id !== target.id);
    expect((await stack.request('GET', `/api/v1/notifications/${target.id}`, { token: owner.token })).status).toBe(404);
    expect(await stack.redis.zscore(keys.projectNotifications(p1), target.id)).toBeNull();
    for (const user of [owner, viewer, editor]) {
      expect(await stack.redis.zscore(keys.projectMemberUnreadNotifications(p1, user.id), target.id)).toBeNull();
    }
    expect((await list(owner, {})).body.data).toEqual(expected(owner, seeded, {}));
    expect((await list(editor, {})).body.data).toEqual(expected(editor, seeded, { projectId: p1 }));
    expect((await stack.request('DELETE', `/api/v1/notifications/${target.id}`, { token: editor.token })).status).toBe(404);
  });
});

describe('read-all', () => {
  it("marks the caller's unread ones of one project, then of all the caller's projects, and nobody else's", async () => {
    const unreadIn = (user: TestUser, projectId?: string) =>
      seenBy(user, seeded).filter((r) => (projectId ? r.projectId === projectId : true) && !r.read).length;
    const inP2 = unreadIn(owner, p2);
    expect(inP2).toBeGreaterThan(0);
    const one = await stack.request('PATCH', `/api/v1/notifications/read-all?projectId=${p2}`, { token: owner.token });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({ updated: inP2 });
    for (const r of seeded) if (r.projectId === p2) readSet(owner).add(r.id);
    expect((await list(owner, {})).body.data).toEqual(expected(owner, seeded, {}));

    const viewerUnread = unreadIn(viewer, p1);
    const ownerBefore = (await list(owner, {})).body.data;
    expect(ownerBefore.unread).toBeGreaterThan(0);
    const all = await stack.request('PATCH', '/api/v1/notifications/read-all', { token: viewer.token });
    expect(all.body.data).toEqual({ updated: viewerUnread });
    for (const r of seeded) if (r.projectId === p1) readSet(viewer).add(r.id);
    const afterViewer = await list(viewer, {});
    expect(afterViewer.body.data).toEqual(expected(viewer, seeded, { projectId: p1 }));
    expect(afterViewer.body.data.unread).toBe(0);
    expect((await list(owner, {})).body.data).toEqual(ownerBefore);

    const ownerAll = await stack.request('PATCH', '/api/v1/notifications/read-all', { token: owner.token });
    expect(ownerAll.body.data).toEqual({ updated: ownerBefore.unread });
    for (const r of seeded) readSet(owner).add(r.id);
    const after = await list(owner, {});
    expect(after.body.data).toEqual(expected(owner, seeded, {}));
    expect(after.body.data.unread).toBe(0);
    expect(after.body.data.notifications.every((r: NotificationRecord) => r.read)).toBe(true);
    expect((await list(editor, {})).body.data.unread).toBe(unreadIn(editor, p1));
    expect(unreadIn(editor, p1)).toBeGreaterThan(0);

    expect((await stack.request('PATCH', '/api/v1/notifications/read-all', { token: owner.token })).body.data).toEqual({ updated: 0 });
    expect((await list(stranger, {})).body.data.unread).toBe(1);
    const outside = await stack.request('PATCH', `/api/v1/notifications/read-all?projectId=${p1}`, { token: stranger.token });
    expect(outside.status).toBe(404);
  });
});

describe('many notifications', () => {
  it('counts, filters and marks read past one read chunk (500 records)', async () => {
    const project = await createProject(stack.request, owner);
    const a = await createDevice(stack.request, owner, project.id);
    const b = await createDevice(stack.request, owner, project.id);
    const many = Array.from({ length: 1100 }, (_, i) => record(project.id, i % 3 === 0 ? a.id : b.id, 'threshold', base + i, i % 5 === 0));
    await seed(many);

    const byDevice = await list(owner, { projectId: project.id, deviceId: a.id, limit: 100, page: 4 });
    expect(byDevice.body.data).toEqual(expected(owner, many, { projectId: project.id, deviceId: a.id, limit: 100, page: 4 }));
    const unread = many.filter((r) => !r.read).length;
    const res = await stack.request('PATCH', `/api/v1/notifications/read-all?projectId=${project.id}`, { token: owner.token });
    expect(res.body.data).toEqual({ updated: unread });
    expect(await stack.redis.exists(keys.projectMemberUnreadNotifications(project.id, owner.id))).toBe(0);
    const after = await list(owner, { projectId: project.id, deviceId: b.id, limit: 100, page: 7 });
    expect(after.body.data.unread).toBe(0);
    expect(after.body.data.notifications.length).toBeGreaterThan(0);
    expect(after.body.data.notifications.every((r: NotificationRecord) => r.read)).toBe(true);
  });
});
