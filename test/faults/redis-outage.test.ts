/**
 * Redis stopped, then frozen (SIGSTOP), under a gateway of its own: every request answers 503
 * naming redis within 2 s, never a hang or a 500, and the same gateway serves again once Redis is
 * back, with no restart.
 */
import { createDevice, createProject, registerUser, writeValue, type TestUser } from '../helpers/fixtures';
import type { HttpResult } from '../helpers/http';
import { ownRedis, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually } from '../helpers/wait';

const ANSWER_WITHIN_MS = 2000;

let redis: RestartableServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;
let deviceId: string;

beforeAll(async () => {
  redis = await ownRedis();
  stack = await startStack({ overrides: redis.env });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
  await writeValue(stack.request, owner, deviceId, 1, '20');
}, 60_000);

afterAll(async () => {
  redis.thaw();
  await stack.stop();
  await stopOwnServers();
});

const answered = (method: string, path: string, body?: unknown): Promise<HttpResult> =>
  answerWithin(ANSWER_WITHIN_MS, `${method} ${path}`, stack.request(method, path, { token: owner.token, body }));

/** A mix of reads and writes a dashboard and a device make. */
const traffic = (): Array<Promise<HttpResult>> => [
  answered('GET', '/api/v1/auth/me'),
  answered('GET', '/api/v1/projects'),
  answered('GET', `/api/v1/devices/${deviceId}`),
  answered('POST', `/api/v1/data/${deviceId}/2`, { value: '21.5' }),
  answered('GET', `/api/v1/data/${deviceId}/1/latest`),
  answered('POST', '/api/v1/projects', { name: 'During the outage' }),
];

async function expectRedisUnavailable(): Promise<void> {
  const results = await Promise.all(traffic());
  for (const res of results) {
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.body.error.details).toEqual([{ field: 'dependency', problem: 'redis' }]);
  }
  const ready = await answered('GET', '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'redis' })]));
}

async function expectServingAgain(): Promise<void> {
  await eventually(async () => expect((await answered('GET', '/readyz')).status).toBe(200), 15_000);
  const results = await Promise.all(traffic());
  expect(results.map((r) => r.status)).toEqual([200, 200, 200, 201, 200, 201]);
}

test('Redis stopped: every request answers 503 (redis) within 2 s, and the gateway serves again after a restart', async () => {
  await expectServingAgain();
  await redis.stop();
  await expectRedisUnavailable();
  await expectRedisUnavailable();
  await redis.restart();
  await expectServingAgain();
}, 60_000);

test('Redis frozen (SIGSTOP): every request answers 503 (redis) within 2 s, and the gateway serves again after SIGCONT', async () => {
  redis.freeze();
  await expectRedisUnavailable();
  redis.thaw();
  await expectServingAgain();
}, 60_000);
