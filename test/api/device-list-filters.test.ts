/**
 * The management device list finds devices by name and tag (DESIGN §13), and every management list
 * answers an unknown query parameter with 400 instead of ignoring it (a `tags=` typo for `tag=`
 * would otherwise return the whole fleet).
 */
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';

let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const list = (query: string) => stack.request('GET', `/api/v1/devices?projectId=${projectId}&${query}`, { token: owner.token });

test('q finds names containing it in any case, tag finds devices carrying it, and both page together', async () => {
  const names = ['Pump North', 'pump south', 'Door Sensor'];
  const ids: string[] = [];
  for (const name of names) ids.push((await createDevice(stack.request, owner, projectId, name)).id);
  const tagged = await stack.request('PATCH', `/api/v1/devices/${ids[1]}`, { token: owner.token, body: { tags: ['site-7', 'pumps'] } });
  expect(tagged.status).toBe(200);

  const pumps = await list('q=PUMP');
  expect(pumps.status).toBe(200);
  expect(pumps.body.data.devices.map((d: { name: string }) => d.name)).toEqual(['Pump North', 'pump south']);
  expect(pumps.body.data.total).toBe(2);

  const site = await list('tag=site-7');
  expect(site.body.data.devices.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
  expect((await list('q=door&tag=site-7')).body.data.total).toBe(0);

  const paged = await list('q=pump&limit=1&page=2');
  expect(paged.body.data).toMatchObject({ total: 2, page: 2, limit: 1 });
  expect(paged.body.data.devices.map((d: { name: string }) => d.name)).toEqual(['pump south']);
});

test.each([
  ['/api/v1/devices?tags=site-7', 'tags'],
  ['/api/v1/alarms?sevrity=critical', 'sevrity'],
  ['/api/v1/notifications?unreadOnly=true', 'unreadOnly'],
  ['/api/v1/widgets?projectId=PROJECT&device=x', 'device'],
  ['/api/v1/notifications/rules?projectId=PROJECT&pin=1', 'pin'],
])('%s is a 400 naming the unknown parameter', async (path, name) => {
  const res = await stack.request('GET', path.replace('PROJECT', projectId), { token: owner.token });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALIDATION_ERROR');
  expect(res.body.error.message).toContain(`"${name}"`);
});
