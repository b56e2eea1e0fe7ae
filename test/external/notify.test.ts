import { startStack, type Stack } from '../helpers/stack';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';
import { createApiKey, setPlan } from './fixtures';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let key: string;
let projectId: string;
let deviceId: string;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'pro');
  key = (await createApiKey(stack.request, owner)).key;
  projectId = (await createProject(stack.request, owner)).id;
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
}, 60_000);
afterAll(async () => {
  await stack.stop();
});

const notify = (body: unknown, id = deviceId) =>
  stack.request('POST', `/external/api/v1/devices/${id}/notify`, { headers: { 'x-api-key': key }, body });

async function stored(id: string): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const json = await stack.redis.get(keys.notification(id));
    if (!json) throw new Error('notification not stored yet');
    return JSON.parse(json);
  });
}

describe('POST /devices/{deviceId}/notify (SPEC §4.6)', () => {
  it("answers the notificationId and stores a device notification in the device's project", async () => {
    const res = await notify({ title: 'Door', message: 'The door opened', priority: 'high' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { notificationId: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    expect(await stored(res.body.data.notificationId)).toEqual({
      id: res.body.data.notificationId,
      projectId,
      deviceId,
      ruleId: null,
      type: 'device',
      title: 'Door',
      message: 'The door opened',
      priority: 'high',
      channels: ['inApp'],
      read: false,
      createdAt: expect.any(String),
    });
    expect(
      await stack.redis.zscore(keys.projectMemberUnreadNotifications(projectId, owner.id), res.body.data.notificationId),
    ).not.toBeNull();
  });

  it('defaults the title to "Device Notification" and the priority to normal', async () => {
    const res = await notify({ message: 'hello' });
    expect(res.status).toBe(200);
    expect(await stored(res.body.data.notificationId)).toMatchObject({
      title: 'Device Notification',
      priority: 'normal',
      message: 'hello',
    });
  });

  it('accepts a title of 100 and a message of 500 characters', async () => {
    const res = await notify({ title: 't'.repeat(100), message: 'm'.repeat(500) });
    expect(res.status).toBe(200);
  });

  it.each([
    ['no message', { title: 'x' }, 'body.message'],
    ['an empty message', { message: '' }, 'body.message'],
    ['a message over 500', { message: 'm'.repeat(501) }, 'body.message'],
    ['a title over 100', { message: 'm', title: 't'.repeat(101) }, 'body.title'],
    ['an unknown priority', { message: 'm', priority: 'urgent' }, 'body.priority'],
  ])('400 VALIDATION_ERROR for %s', async (_what, body, field) => {
    const res = await notify(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: [{ field, problem: expect.any(String) }] },
    });
  });

  it('404 DEVICE_NOT_FOUND for a device the key owner cannot reach', async () => {
    const res = await notify({ message: 'm' }, '00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('DEVICE_NOT_FOUND');
  });
});
