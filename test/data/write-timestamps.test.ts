import { startStack, type Stack } from '../helpers/stack';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';

let stack: Stack;
let owner: TestUser;
let deviceId: string;
const HOUR = 3_600_000;
const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  const projectId = (await createProject(stack.request, owner)).id;
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
});
afterAll(async () => {
  await stack.stop();
});

const latest = (pin: number) => stack.request('GET', `/api/v1/data/${deviceId}/${pin}/latest`, { token: owner.token });

describe('an imported reading dated more than 24 h ahead of the server clock', () => {
  it('is refused by the single write (400 naming body.timestamp); nothing is stored', async () => {
    for (const timestamp of ['9999-12-31T23:59:59Z', ahead(25 * HOUR)]) {
      const res = await stack.request('POST', `/api/v1/data/${deviceId}/1`, { token: owner.token, body: { value: '42', timestamp } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details).toEqual([{ field: 'body.timestamp', problem: expect.stringContaining('24 hours in the future') }]);
    }
    expect((await latest(1)).status).toBe(404);
  });

  it('is refused by the bulk write (400 naming the reading); none of the readings is stored', async () => {
    const readings = [
      { pin: 2, value: '1', timestamp: ahead(-HOUR) },
      { pin: 2, value: '9999', timestamp: '9999-01-01T00:00:00.000Z' },
      { pin: 2, value: '3' },
    ];
    const res = await stack.request('POST', `/api/v1/data/${deviceId}/bulk`, { token: owner.token, body: { readings } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual([
      { field: 'body.readings.1.timestamp', problem: expect.stringContaining('24 hours in the future') },
    ]);
    expect((await latest(2)).status).toBe(404);
  });

  it('within 24 h ahead (clock skew) is still taken, as is any past one', async () => {
    const skewed = ahead(23 * HOUR);
    const one = await stack.request('POST', `/api/v1/data/${deviceId}/3`, { token: owner.token, body: { value: '5', timestamp: skewed } });
    expect(one.status).toBe(201);
    expect((await latest(3)).body.data).toEqual({ value: '5', timestamp: skewed });

    const past = ahead(-2 * HOUR);
    const bulk = await stack.request('POST', `/api/v1/data/${deviceId}/bulk`, {
      token: owner.token,
      body: {
        readings: [
          { pin: 4, value: '6', timestamp: past },
          { pin: 4, value: '7', timestamp: ahead(HOUR) },
        ],
      },
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.written).toBe(2);
  });
});
