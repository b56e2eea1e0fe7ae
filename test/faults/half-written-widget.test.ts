/**
 * A KEYPAD widget created locked while a dependency fails, under a gateway and worker of their
 * own: the create answers 503 naming the dependency, no widget is stored, and no lock is left
 * behind once the dependency is back, even one the twin took after the gateway gave up on it.
 */
import { createRedis, type Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import type { HttpResult } from '../helpers/http';
import { ownRedis, ownTemporal, stopOwnServers, type OwnServer, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually } from '../helpers/wait';

let redis: RestartableServer;
let temporal: OwnServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;
let subscriber: Redis;

beforeAll(async () => {
  redis = await ownRedis();
  temporal = await ownTemporal();
  stack = await startStack({ overrides: { ...redis.env, ...temporal.env }, worker: true });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
  await stack.redis.config('SET', 'notify-keyspace-events', 'Kh');
  subscriber = createRedis(stack.config, 'test-keyspace-subscriber');
}, 90_000);

afterAll(async () => {
  redis.thaw();
  temporal.thaw();
  subscriber.disconnect();
  await stack.stop();
  await stopOwnServers();
});

const createKeypad = (deviceId: string, pin: number): Promise<HttpResult> =>
  answerWithin(
    8000,
    'POST /api/v1/widgets (KEYPAD, locked)',
    stack.request('POST', '/api/v1/widgets', {
      token: owner.token,
      body: { type: 'KEYPAD', projectId, deviceId, pin, layout: { x: 0, y: 0, w: 2, h: 2 }, config: { label: 'Door', locked: true } },
    }),
  );

const locks = async (deviceId: string): Promise<{ pin: string; widgetId: string | null }[]> => {
  const res = await stack.request('GET', `/api/v1/devices/${deviceId}/locks`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data.locks;
};

/** A 503 naming one of `dependencies` (whichever the request found down first), and no widget stored. */
async function expectNothingStored(res: HttpResult, ...dependencies: string[]): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.body.error.details).toEqual([{ field: 'dependency', problem: expect.any(String) }]);
  expect(dependencies).toContain(res.body.error.details[0].problem);
  const widgets = await stack.request('GET', `/api/v1/widgets?projectId=${projectId}`, { token: owner.token });
  expect(widgets.body.data.widgets).toEqual([]);
}

test('Redis frozen while the twin takes the lock: 503, no widget, and the lock it took late is released', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const channel = `__keyspace@0__:${keys.deviceLocks(device.id)}`;
  await subscriber.subscribe(channel);
  // The twin's lock activity has written the lock mirror: freeze Redis before it can finish.
  subscriber.once('message', () => redis.freeze());
  let res: HttpResult;
  try {
    res = await createKeypad(device.id, 5);
  } finally {
    redis.thaw();
  }
  await subscriber.unsubscribe(channel);
  await eventually(async () => expect((await stack.request('GET', '/readyz')).status).toBe(200), 15_000);
  // The lock Update waits on the frozen Redis (temporal, at its deadline), or it returned just
  // before the freeze and the widget's own write finds Redis frozen (redis): either way, nothing stays.
  await expectNothingStored(res, 'temporal', 'redis');
  await eventually(async () => expect(await locks(device.id)).toEqual([]), 30_000, 250);
}, 90_000);

// A guard more than a reproduction: the Temporal server drops the Update the gateway gave up on
// (its call was cancelled), so no late lock shows up here even without the release.
test('Temporal frozen: 503 (temporal), no widget, and no lock once Temporal is back', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  temporal.freeze();
  let res: HttpResult;
  try {
    res = await createKeypad(device.id, 6);
  } finally {
    temporal.thaw();
  }
  await eventually(async () => expect((await stack.request('GET', '/readyz')).status).toBe(200), 15_000);
  await expectNothingStored(res, 'temporal');
  // An Update sent after the create's: once it is answered, a lock the create's Update took late is in the mirror.
  await eventually(
    async () => expect((await stack.request('PUT', `/api/v1/devices/${device.id}/pins/9/lock`, { token: owner.token })).status).toBe(200),
    15_000,
  );
  await eventually(async () => expect((await locks(device.id)).map((l) => l.pin)).toEqual(['V9']), 30_000, 250);
}, 90_000);
