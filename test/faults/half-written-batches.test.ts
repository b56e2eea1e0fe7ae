/**
 * Redis frozen in the middle of a batch write (external PATCH pins, simple /batch-update, the
 * management bulk write), under a gateway of its own: the request answers 503 naming redis, and
 * its details say for each entry whether it was stored; every entry said to be stored is, and
 * every one said not to be stored is not, once Redis is back.
 */
import { createRedis, type Redis } from '../../common/redis';
import { createApiKey, enableSimpleApi, setPlan } from '../external/fixtures';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import type { HttpResult } from '../helpers/http';
import { ownRedis, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

const ENTRIES = 20;

let redis: RestartableServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;
let apiKey: string;
let subscriber: Redis;

beforeAll(async () => {
  redis = await ownRedis();
  stack = await startStack({ overrides: redis.env });
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'enterprise');
  apiKey = (await createApiKey(stack.request, owner)).key;
  projectId = (await createProject(stack.request, owner)).id;
  await stack.redis.config('SET', 'notify-keyspace-events', 'Kh');
  subscriber = createRedis(stack.config, 'test-keyspace-subscriber');
}, 60_000);

afterAll(async () => {
  redis.thaw();
  subscriber.disconnect();
  await stack.stop();
  await stopOwnServers();
});

/** Sends a batch and freezes Redis the moment the first of its values is stored; thaws it once the answer is in. */
async function freezeDuringBatch(deviceId: string, send: () => Promise<HttpResult>): Promise<HttpResult> {
  const channel = `__keyspace@0__:${keys.devicePins(deviceId)}`;
  await subscriber.subscribe(channel);
  let frozen = false;
  const freezeOnFirst = (ch: string): void => {
    if (ch !== channel || frozen) return;
    frozen = true;
    redis.freeze();
  };
  subscriber.on('message', freezeOnFirst);
  try {
    const res = await answerWithin(5000, 'batch write with Redis frozen midway', send());
    expect(frozen).toBe(true);
    return res;
  } finally {
    redis.thaw();
    subscriber.off('message', freezeOnFirst);
    await subscriber.unsubscribe(channel);
    await eventually(async () => expect((await stack.request('GET', '/readyz')).status).toBe(200), 15_000);
  }
}

/**
 * The answer names redis and gives one outcome per entry: the first entry stored, the last not;
 * once Redis is back, each entry's pin holds its value exactly when it was said to be stored.
 */
async function expectTruthfulOutcomes(res: HttpResult, deviceId: string, field: string, pinOf: (i: number) => string): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  const [dependency, ...entries] = res.body.error.details as { field: string; problem: string }[];
  expect(dependency).toEqual({ field: 'dependency', problem: 'redis' });
  expect(entries.map((e) => e.field)).toEqual(Array.from({ length: ENTRIES }, (_, i) => `${field}.${i}`));
  const outcomes = entries.map((e) => e.problem);
  expect(outcomes[0]).toBe('stored');
  expect(outcomes[ENTRIES - 1]).toBe('not stored');
  expect(outcomes.filter((o) => o === 'unknown')).toHaveLength(1);
  const stored = await stack.redis.hgetall(keys.devicePins(deviceId));
  outcomes.forEach((outcome, i) => {
    if (outcome === 'stored') expect(JSON.parse(stored[pinOf(i)] ?? 'null')).toEqual(expect.objectContaining({ value: `v${i}` }));
    if (outcome === 'not stored') expect(stored[pinOf(i)]).toBeUndefined();
  });
}

const indexes = Array.from({ length: ENTRIES }, (_, i) => i);

test('external PATCH pins: Redis frozen midway answers 503 (redis) saying which pins were stored', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const pins = indexes.map((i) => ({ pin: `V${i}`, value: `v${i}` }));
  const res = await freezeDuringBatch(device.id, () =>
    stack.request('PATCH', `/external/api/v1/devices/${device.id}/pins`, { headers: { 'x-api-key': apiKey }, body: { pins } }),
  );
  await expectTruthfulOutcomes(res, device.id, 'body.pins', (i) => `V${i}`);
}, 60_000);

test('simple /batch-update: Redis frozen midway answers 503 (redis) saying which pins were stored', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const iot = await enableSimpleApi(stack.request, owner, device.id);
  const pins = indexes.map((i) => ({ pin: `D${i}`, value: `v${i}` }));
  const res = await freezeDuringBatch(device.id, () =>
    stack.request('POST', `/external/api/batch-update?token=${iot}`, { body: { pins } }),
  );
  await expectTruthfulOutcomes(res, device.id, 'body.pins', (i) => `D${i}`);
}, 60_000);

test('management bulk write: Redis frozen midway answers 503 (redis) saying which readings were stored', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const readings = indexes.map((i) => ({ pin: i, value: `v${i}` }));
  const res = await freezeDuringBatch(device.id, () =>
    stack.request('POST', `/api/v1/data/${device.id}/bulk`, { token: owner.token, body: { readings } }),
  );
  await expectTruthfulOutcomes(res, device.id, 'body.readings', (i) => `V${i}`);
}, 60_000);
