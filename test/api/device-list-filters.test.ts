/**
 * The management device list finds devices by name, tag, firmware version and last contact
 * (DESIGN §13), and every management list
 * answers an unknown query parameter with 400 instead of ignoring it (a `tags=` typo for `tag=`
 * would otherwise return the whole fleet).
 */
import { writeInfo, writeStatus } from '../../store/device-mirror';
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

test('firmwareVersion matches a semantic version, firmwareVersionLt those below one, lastSeenBefore/After by the mirror', async () => {
  const project = (await createProject(stack.request, owner, 'Firmware')).id;
  const now = Date.now();
  const fleet: [string, string, number | null][] = [
    ['Old', '1.2.0', now - 600_000],
    ['Candidate', 'v2.0.0-rc.1', now - 60_000],
    ['Current', '2.0.0', null],
    ['Custom', 'custom-build', now],
  ];
  const byName = new Map<string, string>();
  for (const [name, firmware, seen] of fleet) {
    const { id } = await createDevice(stack.request, owner, project, name);
    byName.set(name, id);
    expect(await writeInfo(stack.redis, id, { firmwareVersion: firmware })).toBe(true);
    if (seen !== null) {
      const at = new Date(seen).toISOString();
      await writeStatus(stack.redis, { deviceId: id, status: 'offline', statusChangedAt: at, lastSeen: at });
    }
  }
  const names = async (query: string) => {
    const res = await stack.request('GET', `/api/v1/devices?projectId=${project}&${query}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(res.body.data.devices.length);
    return res.body.data.devices.map((d: { name: string }) => d.name);
  };
  const fiveMinutesAgo = encodeURIComponent(new Date(now - 300_000).toISOString());

  expect(await names('firmwareVersionLt=2.0.0')).toEqual(['Old', 'Candidate']);
  expect(await names('firmwareVersion=2.0.0')).toEqual(['Current']);
  expect(await names('firmwareVersion=v1.2.0')).toEqual(['Old']);
  expect(await names('firmwareVersion=custom-build')).toEqual(['Custom']);
  expect(await names(`lastSeenBefore=${fiveMinutesAgo}`)).toEqual(['Old', 'Current']);
  expect(await names(`lastSeenAfter=${fiveMinutesAgo}`)).toEqual(['Candidate', 'Custom']);
  expect(await names(`lastSeenAfter=${fiveMinutesAgo}&firmwareVersionLt=2.0.0&q=cand`)).toEqual(['Candidate']);
  // Across every project of the caller, without projectId.
  const everywhere = await stack.request('GET', '/api/v1/devices?firmwareVersionLt=1.3.0', { token: owner.token });
  expect(everywhere.body.data.devices.map((d: { id: string }) => d.id)).toEqual([byName.get('Old')]);

  for (const bad of ['firmwareVersionLt=banana', 'lastSeenBefore=yesterday', 'lastSeenAfter=2026-01-01']) {
    const res = await stack.request('GET', `/api/v1/devices?projectId=${project}&${bad}`, { token: owner.token });
    expect(res.status).toBe(400);
  }
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
