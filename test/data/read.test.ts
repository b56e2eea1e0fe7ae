import { startStack, type Stack } from '../helpers/stack';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';

let stack: Stack;
let owner: TestUser;
let deviceId: string;
/** A UTC hour boundary two hours ago, inside the retention window. */
const base = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 2 * 3_600_000;
const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();
const window = `from=${encodeURIComponent(at(0))}&to=${encodeURIComponent(at(3599))}`;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
  const projectId = (await createProject(stack.request, owner)).id;
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
  const readings = [
    { pin: 3, value: '10', timestamp: at(0) },
    { pin: 3, value: '20', timestamp: at(30) },
    { pin: 3, value: '5', timestamp: at(60) },
    { pin: 3, value: 'abc', timestamp: at(90) },
    { pin: 3, value: '7', timestamp: at(125) },
  ];
  const res = await stack.request('POST', `/api/v1/data/${deviceId}/bulk`, { token: owner.token, body: { readings } });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await stack.stop();
});

const get = (path: string) => stack.request('GET', `/api/v1/data/${deviceId}/${path}`, { token: owner.token });

describe('raw reads', () => {
  it('returns numeric points in time order with the pin as a number', async () => {
    const res = await get(`3?${window}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      pin: 3,
      deviceId,
      points: [
        { timestamp: at(0), value: 10 },
        { timestamp: at(30), value: 20 },
        { timestamp: at(60), value: 5 },
        { timestamp: at(125), value: 7 },
      ],
    });
  });

  it('keeps the newest points when the limit cuts', async () => {
    const res = await get(`3?${window}&limit=2`);
    expect(res.body.data.points).toEqual([
      { timestamp: at(60), value: 5 },
      { timestamp: at(125), value: 7 },
    ]);
  });

  it('defaults to the last hour', async () => {
    const res = await get('3');
    expect(res.status).toBe(200);
    expect(res.body.data.points).toEqual([]);
  });

  it('writes CSV with a header line', async () => {
    const res = await get(`3?${window}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.text).toBe(`timestamp,value\n${at(0)},10\n${at(30)},20\n${at(60)},5\n${at(125)},7\n`);
  });
});

describe('aggregated reads', () => {
  it.each([
    [
      'avg',
      '1m',
      [
        [0, 15],
        [60, 5],
        [120, 7],
      ],
    ],
    [
      'min',
      '1m',
      [
        [0, 10],
        [60, 5],
        [120, 7],
      ],
    ],
    [
      'max',
      '1m',
      [
        [0, 20],
        [60, 5],
        [120, 7],
      ],
    ],
    [
      'sum',
      '1m',
      [
        [0, 30],
        [60, 5],
        [120, 7],
      ],
    ],
    ['avg', '5m', [[0, 10.5]]],
    ['sum', '1h', [[0, 42]]],
  ] as const)('%s over %s buckets aligned to UTC', async (fn, interval, expected) => {
    const res = await get(`3?${window}&aggregate=${fn}&interval=${interval}`);
    expect(res.status).toBe(200);
    expect(res.body.data.points).toEqual(expected.map(([s, value]) => ({ timestamp: at(s), value })));
  });

  it('aligns daily buckets to UTC midnight', async () => {
    const midnight = new Date(Math.floor(base / 86_400_000) * 86_400_000).toISOString();
    const res = await get(`3?${window}&aggregate=max&interval=1d`);
    expect(res.body.data.points).toEqual([{ timestamp: midnight, value: 20 }]);
  });

  it('needs an interval for a non-raw aggregate (400 VALIDATION_ERROR)', async () => {
    const res = await get(`3?${window}&aggregate=avg`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual([{ field: 'query.interval', problem: expect.any(String) }]);
  });

  it.each(['aggregate=median&interval=1m', 'interval=2m&aggregate=avg', 'format=xml', 'from=yesterday', 'limit=0'])(
    'rejects %s',
    async (query) => {
      const res = await get(`3?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    },
  );

  it('rejects a pin outside 0–255', async () => {
    expect((await get('256')).status).toBe(400);
  });
});

describe('latest and deletes', () => {
  it('returns the latest value by time and 404 PIN_NOT_FOUND for a pin never written', async () => {
    const res = await get('3/latest');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ value: '7', timestamp: at(125) });
    const none = await get('4/latest');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('PIN_NOT_FOUND');
  });

  it('deletes a range, moving the latest value back to the newest point left', async () => {
    const del = await stack.request(
      'DELETE',
      `/api/v1/data/${deviceId}/3?from=${encodeURIComponent(at(100))}&to=${encodeURIComponent(at(200))}`,
      { token: owner.token },
    );
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ deviceId, pin: 3, deleted: 1 });
    expect((await get('3/latest')).body.data).toEqual({ value: 'abc', timestamp: at(90) });
    expect((await get(`3?${window}`)).body.data.points.map((p: { value: number }) => p.value)).toEqual([10, 20, 5]);
  });

  it('deletes all data of the pin when no range is given', async () => {
    const del = await stack.request('DELETE', `/api/v1/data/${deviceId}/3`, { token: owner.token });
    expect(del.body.data.deleted).toBe(4);
    expect((await get(`3?${window}`)).body.data.points).toEqual([]);
    expect((await get('3/latest')).status).toBe(404);
    expect(await stack.history(deviceId, 'V3')).toEqual([]);
  });
});
