import { startStack, type Stack } from '../helpers/stack';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';
import { connectDevice, createApiKey, labelPin, lockPin, rateHeaders, setPlan, type DeviceConnection } from './fixtures';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let key: string;
let projectId: string;
const connections: DeviceConnection[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'enterprise');
  key = (await createApiKey(stack.request, owner)).key;
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await stack.stop();
});

const call = (method: string, path: string, body?: unknown) =>
  stack.request(method, `/external/api/v1${path}`, { headers: { 'x-api-key': key }, body });

function expectError(res: { status: number; body: unknown }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
}

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

async function latest(deviceId: string, pin: string): Promise<{ value: string; updatedAt: string } | null> {
  const json = await stack.redis.hget(keys.devicePins(deviceId), pin);
  return json ? JSON.parse(json) : null;
}

describe('PUT /devices/{deviceId}/pins/{pin} (SPEC §4.6)', () => {
  it('stores the value through ingest; delivered false while the device is offline', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const res = await call('PUT', `/devices/${device.id}/pins/V1`, { value: '21.5' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { pin: 'V1', value: '21.5', delivered: false, updatedAt: iso, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
    });
    expect(rateHeaders(res.headers).limit).toBe(1000);
    expect(await latest(device.id, 'V1')).toEqual({ value: '21.5', updatedAt: res.body.data.updatedAt, origin: 'app' });
    expect(await stack.history(device.id, 'V1')).toEqual([{ value: '21.5', timestamp: res.body.data.updatedAt }]);
  });

  it('publishes to an online device: delivered true, and the device gets the command', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const connection = await connectDevice(stack, device);
    connections.push(connection);
    const res = await call('PUT', `/devices/${device.id}/pins/d3`, { value: '1' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      pin: 'D3',
      value: '1',
      delivered: true,
      updatedAt: iso,
      commandId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    await eventually(() => expect(connection.commands).toEqual([{ pin: 'D3', value: '1' }]));
  });

  it('accepts exactly the byte limit and refuses one byte more with 400 VALUE_TOO_LARGE (nothing stored)', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    expect((await call('PUT', `/devices/${device.id}/pins/V2`, { value: 'x'.repeat(1024) })).status).toBe(200);
    expectError(await call('PUT', `/devices/${device.id}/pins/V3`, { value: 'x'.repeat(1025) }), 400, 'VALUE_TOO_LARGE');
    expectError(await call('PUT', `/devices/${device.id}/pins/V3`, { value: 'é'.repeat(513) }), 400, 'VALUE_TOO_LARGE');
    expect((await call('PUT', `/devices/${device.id}/pins/A1`, { value: '1234567890123456' })).status).toBe(200);
    expectError(await call('PUT', `/devices/${device.id}/pins/A2`, { value: '12345678901234567' }), 400, 'VALUE_TOO_LARGE');
    expectError(await call('PUT', `/devices/${device.id}/pins/D1`, { value: '12345678901234567' }), 400, 'VALUE_TOO_LARGE');
    expect(await latest(device.id, 'V3')).toBeNull();
    expect(await stack.history(device.id, 'V3')).toEqual([]);
  });

  it('refuses a locked pin with 403 PIN_LOCKED (nothing stored)', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    await lockPin(stack.request, owner, device.id, 'V9');
    expectError(await call('PUT', `/devices/${device.id}/pins/V9`, { value: '5' }), 403, 'PIN_LOCKED');
    expect(await latest(device.id, 'V9')).toBeNull();
  });

  it.each([
    ['a malformed pin name', 'X1'],
    ['a D pin beyond D99', 'D100'],
    ['an A pin beyond A15', 'A16'],
  ])('400 INVALID_PIN for %s', async (_what, pin) => {
    const device = await createDevice(stack.request, owner, projectId);
    expectError(await call('PUT', `/devices/${device.id}/pins/${pin}`, { value: '1' }), 400, 'INVALID_PIN');
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(0);
  });

  it.each([
    ['a missing value', {}, 'expected string, received undefined'],
    ['a value that is not a string', { value: 5 }, 'expected string, received number'],
  ])('400 INVALID_PIN naming the field for %s', async (_what, body, problem) => {
    const device = await createDevice(stack.request, owner, projectId);
    const res = await call('PUT', `/devices/${device.id}/pins/V1`, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'INVALID_PIN',
        message: expect.any(String),
        details: [{ field: 'body.value', problem: expect.stringContaining(problem) }],
      },
    });
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(0);
  });
});

describe('GET /devices/{deviceId}/pins and /pins/{pin} (SPEC §4.6, §2.7)', () => {
  it('lists every recorded pin with its label (null without a labelled widget)', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    expect((await call('GET', `/devices/${device.id}/pins`)).body).toEqual({ success: true, data: [] });
    const v10 = await call('PUT', `/devices/${device.id}/pins/V10`, { value: 'on' });
    const v2 = await call('PUT', `/devices/${device.id}/pins/V2`, { value: '{"a":1}' });
    const d4 = await call('PUT', `/devices/${device.id}/pins/D4`, { value: '0' });
    await labelPin(stack.request, owner, projectId, device.id, 2, 'Temperature');
    await labelPin(stack.request, owner, projectId, device.id, 7, 'Unused');

    const res = await call('GET', `/devices/${device.id}/pins`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: [
        { pin: 'D4', value: '0', label: null, updatedAt: d4.body.data.updatedAt },
        { pin: 'V2', value: '{"a":1}', label: 'Temperature', updatedAt: v2.body.data.updatedAt },
        { pin: 'V10', value: 'on', label: null, updatedAt: v10.body.data.updatedAt },
      ],
    });

    const one = await call('GET', `/devices/${device.id}/pins/V2`);
    expect(one.body).toEqual({
      success: true,
      data: { pin: 'V2', value: '{"a":1}', label: 'Temperature', updatedAt: v2.body.data.updatedAt },
    });
    expect((await call('GET', `/devices/${device.id}/pins/v10`)).body.data).toEqual({
      pin: 'V10',
      value: 'on',
      label: null,
      updatedAt: v10.body.data.updatedAt,
    });
    expect((await call('GET', `/devices/${device.id}/pins/10`)).body.data.pin).toBe('V10');
  });

  it('404 PIN_NOT_FOUND for a pin never recorded; 400 INVALID_PIN for a name that is not a pin', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    expectError(await call('GET', `/devices/${device.id}/pins/V0`), 404, 'PIN_NOT_FOUND');
    expectError(await call('GET', `/devices/${device.id}/pins/Q1`), 400, 'INVALID_PIN');
    expectError(await call('GET', `/devices/${device.id}/pins/V256`), 400, 'INVALID_PIN');
  });
});

describe('PATCH /devices/{deviceId}/pins: batch (SPEC §4.6 rules 1–2, §8)', () => {
  it('stores every entry; a locked pin and an oversized value are skipped with delivered false', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    await lockPin(stack.request, owner, device.id, 'V2');
    const res = await call('PATCH', `/devices/${device.id}/pins`, {
      pins: [
        { pin: 'V1', value: 'a' },
        { pin: 'V2', value: 'b' },
        { pin: 'D1', value: 'this is far too long for a digital pin' },
        { pin: 'v3', value: 'c' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        updated: 4,
        results: [
          { pin: 'V1', delivered: false, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
          { pin: 'V2', delivered: false, commandId: null },
          { pin: 'D1', delivered: false, commandId: null },
          { pin: 'V3', delivered: false, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
        ],
      },
    });
    expect((await latest(device.id, 'V1'))?.value).toBe('a');
    expect((await latest(device.id, 'V3'))?.value).toBe('c');
    expect(await latest(device.id, 'V2')).toBeNull();
    expect(await latest(device.id, 'D1')).toBeNull();
  });

  it('reports delivered true for the pins published to an online device, false for the locked one', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const connection = await connectDevice(stack, device);
    connections.push(connection);
    await lockPin(stack.request, owner, device.id, 'V6');
    const res = await call('PATCH', `/devices/${device.id}/pins`, {
      pins: [
        { pin: 'V5', value: '1' },
        { pin: 'V6', value: '2' },
        { pin: 'V7', value: '3' },
      ],
    });
    expect(res.body.data).toEqual({
      updated: 3,
      results: [
        { pin: 'V5', delivered: true, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
        { pin: 'V6', delivered: false, commandId: null },
        { pin: 'V7', delivered: true, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      ],
    });
    await eventually(() =>
      expect(connection.commands).toEqual([
        { pin: 'V5', value: '1' },
        { pin: 'V7', value: '3' },
      ]),
    );
  });

  it('accepts 50 entries and rejects 51 with 400 INVALID_PIN, writing nothing', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ pin: `V${i}`, value: String(i) }));
    const tooMany = await call('PATCH', `/devices/${device.id}/pins`, { pins: entries(51) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('INVALID_PIN');
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(0);
    const fifty = await call('PATCH', `/devices/${device.id}/pins`, { pins: entries(50) });
    expect(fifty.status).toBe(200);
    expect(fifty.body.data.updated).toBe(50);
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(50);
  });

  it.each([
    [
      'an invalid pin name among valid ones',
      {
        pins: [
          { pin: 'V1', value: '1' },
          { pin: 'nope', value: '2' },
        ],
      },
    ],
    ['an empty batch', { pins: [] }],
    ['no pins array', { values: [] }],
    ['an entry without value', { pins: [{ pin: 'V1' }] }],
  ])('400 INVALID_PIN for %s, writing nothing', async (_what, body) => {
    const device = await createDevice(stack.request, owner, projectId);
    const res = await call('PATCH', `/devices/${device.id}/pins`, body);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('INVALID_PIN');
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(0);
  });
});

describe('GET /devices/{deviceId}/history/{pin} (SPEC §4.6, §8)', () => {
  let deviceId: string;
  // An hour ago, on a minute: imported timestamps may be at most 24 h ahead (docs/api.md).
  const base = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
  const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();

  beforeAll(async () => {
    deviceId = (await createDevice(stack.request, owner, projectId)).id;
    for (const [minute, value] of [
      [0, '1'],
      [1, 'two'],
      [2, 'a:b'],
      [3, '4'],
      [4, '5'],
    ] as const) {
      const res = await stack.request('POST', `/api/v1/data/${deviceId}/8`, { token: owner.token, body: { value, timestamp: at(minute) } });
      expect(res.status).toBe(201);
    }
  });

  it('returns the points, oldest first, with meta {count, pin}; text values as they are', async () => {
    const res = await call('GET', `/devices/${deviceId}/history/V8`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: [
        { value: '1', timestamp: at(0) },
        { value: 'two', timestamp: at(1) },
        { value: 'a:b', timestamp: at(2) },
        { value: '4', timestamp: at(3) },
        { value: '5', timestamp: at(4) },
      ],
      meta: { count: 5, pin: 'V8' },
    });
  });

  it('keeps the newest `limit` points and honours from and to (inclusive)', async () => {
    const limited = await call('GET', `/devices/${deviceId}/history/8?limit=2`);
    expect(limited.body.data).toEqual([
      { value: '4', timestamp: at(3) },
      { value: '5', timestamp: at(4) },
    ]);
    expect(limited.body.meta).toEqual({ count: 2, pin: 'V8' });
    const window = await call('GET', `/devices/${deviceId}/history/V8?from=${at(1)}&to=${at(3)}`);
    expect(window.body.data.map((p: { value: string }) => p.value)).toEqual(['two', 'a:b', '4']);
    const empty = await call('GET', `/devices/${deviceId}/history/V8?from=${at(10)}`);
    expect(empty.body).toEqual({ success: true, data: [], meta: { count: 0, pin: 'V8' } });
  });

  it('defaults to 100 points and allows 1000 at most', async () => {
    const busy = (await createDevice(stack.request, owner, projectId)).id;
    const readings = Array.from({ length: 120 }, (_, i) => ({ pin: 1, value: String(i), timestamp: at(i) }));
    expect((await stack.request('POST', `/api/v1/data/${busy}/bulk`, { token: owner.token, body: { readings } })).status).toBe(200);
    const res = await call('GET', `/devices/${busy}/history/V1`);
    expect(res.body.meta).toEqual({ count: 100, pin: 'V1' });
    expect(res.body.data[0]).toEqual({ value: '20', timestamp: at(20) });
    expect((await call('GET', `/devices/${busy}/history/V1?limit=1000`)).body.meta.count).toBe(120);
  });

  it('404 PIN_NOT_FOUND for a pin never recorded; 400 for a bad pin or query', async () => {
    expectError(await call('GET', `/devices/${deviceId}/history/V9`), 404, 'PIN_NOT_FOUND');
    expectError(await call('GET', `/devices/${deviceId}/history/X9`), 400, 'INVALID_PIN');
    for (const query of ['limit=0', 'limit=1001', 'from=yesterday', `from=${at(3)}&to=${at(1)}`]) {
      const res = await call('GET', `/devices/${deviceId}/history/V8?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});
