/**
 * The broker stopped under a gateway of its own: creating a device (which gives it a broker
 * account) answers 503 naming mqtt within 2 s, never a 500, and /readyz says mqtt is down.
 */
import { createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { ownMosquitto, stopOwnServers, type OwnServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually } from '../helpers/wait';

let broker: OwnServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  broker = await ownMosquitto();
  stack = await startStack({ overrides: broker.env });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await stopOwnServers();
});

test('broker stopped: device create answers 503 (mqtt) within 2 s and /readyz says mqtt is down', async () => {
  expect((await stack.request('GET', '/readyz')).status).toBe(200);
  await broker.stop();
  await eventually(async () => {
    const ready = await answerWithin(2000, 'GET /readyz', stack.request('GET', '/readyz'));
    expect(ready.status).toBe(503);
    expect(ready.body.error.details).toEqual([expect.objectContaining({ field: 'mqtt' })]);
  }, 5000);
  const created = await answerWithin(
    2000,
    'POST /api/v1/devices',
    stack.request('POST', '/api/v1/devices', { token: owner.token, body: { name: 'Sensor', projectId } }),
  );
  expect(created.status).toBe(503);
  expect(created.body.error.details).toEqual([{ field: 'dependency', problem: 'mqtt' }]);
}, 30_000);
