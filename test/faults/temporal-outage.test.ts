/**
 * Temporal stopped under a gateway of its own: the endpoints that need it (pin lock and unlock)
 * answer 503 naming temporal within 2 s instead of hanging, and /readyz says temporal is down.
 */
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import type { HttpResult } from '../helpers/http';
import { ownTemporal, stopOwnServers, type OwnServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin } from '../helpers/wait';

let temporal: OwnServer;
let stack: Stack;
let owner: TestUser;
let deviceId: string;

beforeAll(async () => {
  temporal = await ownTemporal();
  stack = await startStack({ overrides: temporal.env });
  owner = await registerUser(stack.request);
  const projectId = (await createProject(stack.request, owner)).id;
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
}, 90_000);

afterAll(async () => {
  await stack.stop();
  await stopOwnServers();
});

const answered = (method: string, path: string): Promise<HttpResult> =>
  answerWithin(2000, `${method} ${path}`, stack.request(method, path, { token: owner.token }));

test('Temporal stopped: pin lock and unlock answer 503 (temporal) within 2 s, and /readyz says temporal is down', async () => {
  await temporal.stop();
  const results = await Promise.all([
    answered('PUT', `/api/v1/devices/${deviceId}/pins/1/lock`),
    answered('DELETE', `/api/v1/devices/${deviceId}/pins/2/lock`),
  ]);
  for (const res of results) {
    expect(res.status).toBe(503);
    expect(res.body.error.details).toEqual([{ field: 'dependency', problem: 'temporal' }]);
  }
  const ready = await answered('GET', '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body.error.details).toEqual([expect.objectContaining({ field: 'temporal' })]);
}, 30_000);
