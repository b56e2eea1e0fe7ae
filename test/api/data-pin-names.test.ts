/**
 * The management data endpoints take a pin name as well as a bare number (a number N is VN, SPEC
 * §4.3): D and A pins are written, read back, listed as history and deleted by name, within the
 * SPEC §2.7 ranges and value limits; a number answers as a number, a name as a name.
 */
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

let stack: Stack;
let owner: TestUser;
let deviceId: string;

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  const projectId = (await createProject(stack.request, owner)).id;
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const call = (method: string, path: string, body?: unknown) =>
  stack.request(method, `/api/v1/data/${deviceId}/${path}`, { token: owner.token, body });

test('D0 and A15 are written, read as latest and as history, and deleted by name', async () => {
  const at = new Date(Date.now() - 60_000).toISOString();
  expect((await call('POST', 'D0', { value: '1', timestamp: at })).body.data).toMatchObject({ pin: 'D0', value: '1' });
  expect((await call('POST', 'a15', { value: '512', timestamp: at })).body.data).toMatchObject({ pin: 'A15', value: '512' });
  expect((await call('GET', 'D0/latest')).body.data).toMatchObject({ value: '1' });
  await eventually(
    async () => {
      const history = await call('GET', 'A15');
      expect(history.status).toBe(200);
      expect(history.body.data).toMatchObject({ pin: 'A15', points: [{ value: 512 }] });
    },
    20_000,
    200,
  );
  expect((await call('DELETE', 'D0')).status).toBe(200);
  await eventually(async () => expect((await call('GET', 'D0')).body.data.points).toEqual([]), 20_000, 200);
});

test('a bare number is still its V pin and answers as a number', async () => {
  expect((await call('POST', '7', { value: 'x' })).body.data).toMatchObject({ pin: 7 });
  expect((await call('GET', 'V7/latest')).body.data).toMatchObject({ value: 'x' });
});

test.each(['D100', 'A16', 'V256', '256', 'X1', 'D'])('pin %s is a 400 naming the path parameter', async (pin) => {
  const res = await call('GET', `${pin}`);
  expect(res.status).toBe(400);
  expect(res.body.error.details).toEqual([expect.objectContaining({ field: 'params.pin' })]);
});

test("a D pin's value over 16 bytes is refused", async () => {
  const res = await call('POST', 'D1', { value: '12345678901234567' });
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('VALUE_TOO_LARGE');
});
