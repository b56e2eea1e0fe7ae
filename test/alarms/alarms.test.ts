/**
 * Alarms (issue 17, docs/alarms.md) against the real servers: hysteresis decided on the ingest
 * path, forSeconds / re-notify / escalation timed by the twin (short real durations: Temporal's
 * time-skipping server is not available here), the endpoints and the `alarm` event.
 */
import type { Alarm } from '../../common/contracts';
import { keys } from '../../common/redis-keys';
import { createRuleStore } from '../../store/rules';
import { addMember, createDevice, createProject, registerUser, writeValue, type TestUser } from '../helpers/fixtures';
import { collect, subscribedSocket, type ClientSocket } from '../helpers/socket';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';

let stack: Stack;
let owner: TestUser;
let viewer: TestUser;
let stranger: TestUser;
let projectId: string;
let socket: ClientSocket;
const sockets: ClientSocket[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: true });
  [owner, viewer, stranger] = await Promise.all([registerUser(stack.request), registerUser(stack.request), registerUser(stack.request)]);
  projectId = (await createProject(stack.request, owner)).id;
  await addMember(stack.request, owner, projectId, viewer, 'viewer');
  socket = await subscribedSocket(stack.baseUrl, owner.token, { projectId });
  sockets.push(socket);
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.close();
  await stack.stop();
});

async function addRule(deviceId: string, body: Record<string, unknown>): Promise<string> {
  const res = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, deviceId, message: 'value {value}', channels: ['inApp'], condition: 'gt', pin: 1, threshold: 30, ...body },
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

async function alarmsOf(deviceId: string, query = ''): Promise<Alarm[]> {
  const res = await stack.request('GET', `/api/v1/alarms?projectId=${projectId}&deviceId=${deviceId}${query}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data.alarms;
}

async function noticesOf(deviceId: string): Promise<Array<{ title: string; priority: string }>> {
  const res = await stack.request('GET', `/api/v1/notifications?projectId=${projectId}&deviceId=${deviceId}&limit=100`, {
    token: owner.token,
  });
  expect(res.status).toBe(200);
  return (res.body.data.notifications as Array<{ title: string; priority: string; createdAt: string }>)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map(({ title, priority }) => ({ title, priority }));
}

async function titlesOf(deviceId: string): Promise<string[]> {
  return (await noticesOf(deviceId)).map((n) => n.title);
}

/** Writes values one after another, as an app would. */
async function write(deviceId: string, values: string[]): Promise<void> {
  for (const value of values) await writeValue(stack.request, owner, deviceId, 1, value);
}

test('a value oscillating around the threshold inside the clear band raises one alarm, not one per crossing', async () => {
  const banded = await createDevice(stack.request, owner, projectId);
  const bare = await createDevice(stack.request, owner, projectId);
  await addRule(banded.id, { clearThreshold: 25, severity: 'critical' });
  await addRule(bare.id, {});
  const noisy = ['31', '29', '31', '29.5', '32', '28', '31'];
  await Promise.all([write(banded.id, noisy), write(bare.id, noisy)]);

  // Without a band every crossing back in is a raise (of the same one record).
  await eventually(async () => expect(await alarmsOf(bare.id)).toEqual([expect.objectContaining({ raisedCount: 4 })]), 15_000);
  const [alarm] = await eventually(async () => {
    const found = await alarmsOf(banded.id);
    expect(found).toEqual([
      expect.objectContaining({ state: 'active', severity: 'critical', raisedCount: 1, value: '31', acknowledged: false, pin: 'V1' }),
    ]);
    return found;
  });
  // The severity names the notice and sets its priority (docs/alarms.md): critical is high, warning normal.
  expect(await noticesOf(banded.id)).toEqual([{ title: 'Critical: V1 above 30', priority: 'high' }]);
  expect((await noticesOf(bare.id))[0]).toEqual({ title: 'Warning: V1 above 30', priority: 'normal' });

  // Past the clear threshold it clears; the next raise is the same record, counted.
  const events = collect(socket, 'alarm');
  await write(banded.id, ['24']);
  await eventually(async () =>
    expect(await alarmsOf(banded.id)).toEqual([expect.objectContaining({ state: 'cleared', clearedAt: expect.any(String) })]),
  );
  await write(banded.id, ['33']);
  await eventually(async () =>
    expect(await alarmsOf(banded.id)).toEqual([expect.objectContaining({ id: alarm!.id, state: 'active', raisedCount: 2, value: '33' })]),
  );
  await eventually(() => expect(events.filter((e) => e.id === alarm!.id).map((e) => e.state)).toEqual(['cleared', 'active']));
  // The event shows the record as the API does, with the device's sequence number.
  const [stored] = await alarmsOf(banded.id);
  expect(events.filter((e) => e.id === alarm!.id).at(-1)).toEqual({ ...stored, seq: expect.any(Number) });
}, 40_000);

test('no Temporal action per value: 20 values inside the condition are one edge, one signal to the twin', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await addRule(device.id, { renotifySeconds: 60 });
  const signals = async () => (await stack.metrics())['dds_twin_calls_total{kind="signal",name="alarmEdge",outcome="sent"}'] ?? 0;
  const before = await signals();
  await write(
    device.id,
    Array.from({ length: 20 }, (_, i) => String(40 + i)),
  );
  await eventually(
    async () => expect(await alarmsOf(device.id)).toEqual([expect.objectContaining({ raisedCount: 1, value: '40' })]),
    15_000,
  );
  await sleep(1_000); // the relay has had time to carry out anything more
  expect((await signals()) - before).toBe(1);
}, 40_000);

test('forSeconds: a short spike raises nothing; a condition that holds raises, with its notification', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await addRule(device.id, { forSeconds: 2 });
  await write(device.id, ['40', '10']);
  await sleep(3_000);
  expect(await alarmsOf(device.id)).toEqual([]);
  expect(await titlesOf(device.id)).toEqual([]);

  const raisedAfter = Date.now();
  await write(device.id, ['45']);
  const [alarm] = await eventually(async () => {
    const found = await alarmsOf(device.id, '&state=active');
    expect(found).toHaveLength(1);
    return found;
  }, 15_000);
  expect(Date.now() - raisedAfter).toBeGreaterThanOrEqual(2_000);
  expect(alarm).toMatchObject({ value: '45', raisedCount: 1, severity: 'warning' });
  await eventually(async () => expect(await titlesOf(device.id)).toEqual(['Warning: V1 above 30']));
}, 40_000);

test('re-notify and escalation fire on time and stop once acknowledged; the timers survive a worker restart', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const ruleId = await addRule(device.id, { renotifySeconds: 60, escalate: { afterSeconds: 3, channels: ['inApp'] } });
  // The API's floor is 60 s (docs/limits.md "Email"); the store takes 1 s, so the reminders come within the test.
  const rules = createRuleStore(stack.redis, keys.outbox(stack.config.TEMPORAL_TASK_QUEUE));
  expect((await rules.update(ruleId, async (rule) => ({ ...rule, renotifySeconds: 1 }))).kind).toBe('replaced');
  await write(device.id, ['50']);
  const [alarm] = await eventually(async () => {
    const found = await alarmsOf(device.id);
    expect(found).toHaveLength(1);
    return found;
  }, 15_000);
  await eventually(async () => expect(await titlesOf(device.id)).toContain('Warning: V1 above 30 (still active)'), 10_000);

  await stack.restartWorker();
  await eventually(async () => expect(await titlesOf(device.id)).toContain('Warning: V1 above 30 (escalated)'), 15_000);
  const reminders = (await titlesOf(device.id)).filter((t) => t.endsWith('(still active)')).length;
  expect(reminders).toBeGreaterThanOrEqual(2);

  const acked = await stack.request('POST', `/api/v1/alarms/${alarm!.id}/acknowledge`, { token: owner.token });
  expect(acked.status).toBe(200);
  expect(acked.body.data).toMatchObject({ acknowledged: true, acknowledgedBy: owner.id, state: 'active' });
  // At most one reminder already in flight when the acknowledgement landed; none after it.
  await sleep(1_500);
  const settled = (await titlesOf(device.id)).length;
  await sleep(2_500);
  expect((await titlesOf(device.id)).length).toBe(settled);
}, 60_000);

test('the endpoints: filters, get, acknowledge and clear (again is a 200 that changes nothing), roles, other projects', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await addRule(device.id, { severity: 'minor' });
  await write(device.id, ['99']);
  const [alarm] = await eventually(async () => {
    const found = await alarmsOf(device.id);
    expect(found).toHaveLength(1);
    return found;
  }, 15_000);
  const id = alarm!.id;
  expect(Object.keys(alarm!).sort()).toEqual(
    [
      'id',
      'projectId',
      'deviceId',
      'ruleId',
      'pin',
      'severity',
      'state',
      'acknowledged',
      'value',
      'raisedCount',
      'firstRaisedAt',
      'lastRaisedAt',
      'clearedAt',
      'acknowledgedAt',
      'acknowledgedBy',
    ].sort(),
  );
  expect(await alarmsOf(device.id, '&severity=critical')).toEqual([]);
  expect(await alarmsOf(device.id, '&severity=minor&state=active')).toHaveLength(1);
  const all = await stack.request('GET', '/api/v1/alarms?limit=1', { token: owner.token });
  expect(all.body.data).toMatchObject({ page: 1, limit: 1, total: expect.any(Number) });
  expect(all.body.data.total).toBeGreaterThanOrEqual(1);

  expect((await stack.request('GET', `/api/v1/alarms/${id}`, { token: viewer.token })).body.data).toEqual(alarm);
  expect((await stack.request('POST', `/api/v1/alarms/${id}/acknowledge`, { token: viewer.token })).status).toBe(403);
  for (const path of [`/api/v1/alarms/${id}`, `/api/v1/alarms/${id}/acknowledge`]) {
    const res = await stack.request(path.endsWith('acknowledge') ? 'POST' : 'GET', path, { token: stranger.token });
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 404, code: 'ALARM_NOT_FOUND' });
  }
  expect((await stack.request('GET', '/api/v1/alarms/not-an-alarm', { token: owner.token })).status).toBe(404);
  const bad = await stack.request('GET', `/api/v1/alarms?projectId=${projectId}&severity=extreme`, { token: owner.token });
  expect({ status: bad.status, code: bad.body.error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });

  const events = collect(socket, 'alarm');
  const first = await stack.request('POST', `/api/v1/alarms/${id}/acknowledge`, { token: owner.token });
  const again = await stack.request('POST', `/api/v1/alarms/${id}/acknowledge`, { token: owner.token });
  expect(again.status).toBe(200);
  expect(again.body.data).toEqual(first.body.data);
  const cleared = await stack.request('POST', `/api/v1/alarms/${id}/clear`, { token: owner.token });
  expect(cleared.body.data).toMatchObject({ state: 'cleared', acknowledged: true, clearedAt: expect.any(String) });
  const clearedAgain = await stack.request('POST', `/api/v1/alarms/${id}/clear`, { token: owner.token });
  expect(clearedAgain.body.data).toEqual(cleared.body.data);
  await eventually(() =>
    expect(events.filter((e) => e.id === id).map((e) => [e.state, e.acknowledged])).toEqual([
      ['active', true],
      ['cleared', true],
    ]),
  );

  // Cleared by hand while the value is still inside: the next value inside raises it anew.
  await write(device.id, ['98']);
  await eventually(async () =>
    expect(await alarmsOf(device.id)).toEqual([expect.objectContaining({ state: 'active', raisedCount: 2, acknowledged: false })]),
  );
}, 40_000);

test('a rule refuses bad alarm settings with the envelope', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ severity: 'extreme' }, 'body.severity'],
    [{ clearThreshold: 35 }, 'body.clearThreshold'],
    [{ condition: 'lt', clearThreshold: 20 }, 'body.clearThreshold'],
    [{ condition: 'eq', clearThreshold: 20 }, 'body.clearThreshold'],
    [{ forSeconds: -1 }, 'body.forSeconds'],
    [{ renotifySeconds: 0 }, 'body.renotifySeconds'],
    [{ renotifySeconds: 59 }, 'body.renotifySeconds'],
    [{ escalate: { afterSeconds: -5, channels: ['email'] } }, 'body.escalate.afterSeconds'],
    [{ condition: 'no_data', duration: 60, threshold: null, severity: 'info' }, 'body.severity'],
  ];
  for (const [body, field] of cases) {
    const res = await stack.request('POST', '/api/v1/notifications/rules', {
      token: owner.token,
      body: { projectId, deviceId: device.id, message: 'm', condition: 'gt', pin: 1, threshold: 30, ...body },
    });
    const fields = (res.body.error?.details ?? []).map((d: { field: string }) => d.field);
    expect({ body, status: res.status, code: res.body.error?.code, fields }).toEqual({
      body,
      status: 400,
      code: 'VALIDATION_ERROR',
      fields: [field],
    });
  }
  const ok = await stack.request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: { projectId, deviceId: device.id, message: 'm', condition: 'offline', forSeconds: 5 },
  });
  expect(ok.status).toBe(201);
  expect(ok.body.data).toMatchObject({ forSeconds: 5 });
  const patched = await stack.request('PATCH', `/api/v1/notifications/rules/${ok.body.data.id}`, {
    token: owner.token,
    body: { message: 'n' },
  });
  expect(patched.body.data).toMatchObject({ forSeconds: 5, message: 'n' });
});
