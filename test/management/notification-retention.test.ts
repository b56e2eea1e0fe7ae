/**
 * Notifications are bounded (DESIGN §11, docs/limits.md "Notifications"): records and every index
 * entry older than NOTIFICATION_RETENTION_DAYS are gone, a list read pages at most 10,000 deep, and
 * the `type` / `deviceId` filters read their own indexes instead of every record of the project.
 */
import { randomUUID } from 'node:crypto';
import type { NotificationRecord } from '../../common/contracts';
import { keys } from '../../common/redis-keys';
import { createNotificationStore } from '../../store/notifications';
import { createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { monitorCommands } from '../helpers/redis-monitor';
import { startStack, type Stack } from '../helpers/stack';
import { sleep } from '../helpers/wait';

/** 86.4 s: short enough to watch a record age out. */
const RETENTION_DAYS = 0.001;
const RETENTION_MS = RETENTION_DAYS * 86_400_000;

let stack: Stack;
let owner: TestUser;

beforeAll(async () => {
  stack = await startStack({ overrides: { NOTIFICATION_RETENTION_DAYS: String(RETENTION_DAYS) } });
  owner = await registerUser(stack.request);
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

function record(projectId: string, deviceId: string, type: NotificationRecord['type'], createdAt: number): NotificationRecord {
  return {
    id: randomUUID(),
    projectId,
    deviceId,
    ruleId: null,
    type,
    title: type,
    message: `${type} at ${createdAt}`,
    priority: 'normal',
    channels: ['inApp'],
    read: false,
    createdAt: new Date(createdAt).toISOString(),
  };
}

async function list(query: string) {
  return stack.request('GET', `/api/v1/notifications?${query}`, { token: owner.token });
}

const idsOf = (res: { body: { data: { notifications: NotificationRecord[] } } }) => res.body.data.notifications.map((n) => n.id);

test('records and every index entry older than the retention are gone', async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const deviceId = randomUUID();
  const store = createNotificationStore(stack.redis, RETENTION_DAYS);
  const now = Date.now();
  const ancient = record(projectId, deviceId, 'threshold', now - 2 * RETENTION_MS);
  const ageing = record(projectId, deviceId, 'threshold', now - RETENTION_MS + 4_000);
  const fresh = record(projectId, deviceId, 'no_data', now);
  for (const r of [ancient, ageing, fresh]) await store.create(r);

  expect(await stack.redis.exists(keys.notification(ancient.id))).toBe(0);
  expect(idsOf(await list(`projectId=${projectId}`))).toEqual([fresh.id, ageing.id]);
  expect(idsOf(await list(`projectId=${projectId}&type=threshold`))).toEqual([ageing.id]);

  await sleep(5_000);
  const after = await list(`projectId=${projectId}`);
  expect(after.body.data).toMatchObject({ total: 1, unread: 1 });
  expect(idsOf(after)).toEqual([fresh.id]);
  expect((await list(`projectId=${projectId}&deviceId=${deviceId}&type=threshold`)).body.data).toMatchObject({
    notifications: [],
    total: 0,
    unread: 0,
  });
  expect(await stack.redis.exists(keys.notification(ageing.id))).toBe(0);
  const sets = [
    keys.projectNotifications(projectId),
    keys.projectMemberUnreadNotifications(projectId, owner.id),
    keys.projectNotificationsMatching(projectId, { type: 'threshold' }),
    keys.projectNotificationsMatching(projectId, { deviceId, type: 'threshold' }),
  ];
  for (const set of sets) expect(await stack.redis.zscore(set, ageing.id)).toBeNull();
  // What nobody writes again goes with its newest entry: every set the project has expires.
  for (const set of [...sets, keys.projectNotificationsMatching(projectId, { deviceId }), keys.projectNotificationSets(projectId)]) {
    const ttl = await stack.redis.pttl(set);
    if (ttl === -2) continue;
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(RETENTION_MS);
  }
}, 30_000);

test('page × limit over 10,000 is a 400 naming page; at 10,000 it answers', async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const over = await list(`projectId=${projectId}&page=101&limit=100`);
  expect(over.status).toBe(400);
  expect(over.body.error.code).toBe('VALIDATION_ERROR');
  expect(over.body.error.details.map((d: { field: string }) => d.field)).toEqual(['query.page']);
  expect((await list(`page=10001`)).status).toBe(400);
  expect((await list(`projectId=${projectId}&page=100&limit=100`)).status).toBe(200);
});

test('type and deviceId filters answer the matching records and read only the page of them', async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const [a, b] = [randomUUID(), randomUUID()];
  const store = createNotificationStore(stack.redis, RETENTION_DAYS);
  const base = Date.now() - 60_000;
  const all = Array.from({ length: 600 }, (_, i) =>
    record(projectId, i % 4 === 0 ? a : b, i % 3 === 0 ? 'device_status' : 'threshold', base + i * 10),
  );
  for (let i = 0; i < all.length; i += 100) await Promise.all(all.slice(i, i + 100).map((r) => store.create(r)));
  const newestFirst = (rs: NotificationRecord[]) =>
    [...rs].sort((x, y) => Date.parse(y.createdAt) - Date.parse(x.createdAt)).map((r) => r.id);
  const matching = (f: (r: NotificationRecord) => boolean) => newestFirst(all.filter(f));

  const { hostname, port } = new URL(stack.config.REDIS_URL);
  let recordReads = 0;
  const monitor = await monitorCommands(hostname, Number(port), ([command, key]) => {
    if (command?.toLowerCase() === 'get' && key?.startsWith('notification:')) recordReads += 1;
  });
  try {
    const cases: [string, (r: NotificationRecord) => boolean][] = [
      [`deviceId=${a}`, (r) => r.deviceId === a],
      ['type=device_status', (r) => r.type === 'device_status'],
      [`deviceId=${b}&type=threshold`, (r) => r.deviceId === b && r.type === 'threshold'],
      [`deviceId=${a}&type=threshold&unread=true`, (r) => r.deviceId === a && r.type === 'threshold'],
    ];
    for (const [filter, match] of cases) {
      const want = matching(match);
      const res = await list(`projectId=${projectId}&${filter}&page=2&limit=10`);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ total: want.length, unread: want.length, page: 2, limit: 10 });
      expect(idsOf(res)).toEqual(want.slice(10, 20));
    }
    // MONITOR reports asynchronously: give the last read's commands time to arrive.
    await sleep(200);
    expect(recordReads).toBe(cases.length * 10);
  } finally {
    monitor.destroy();
  }
}, 60_000);
