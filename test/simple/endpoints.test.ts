import { startStack, type Stack } from '../helpers/stack';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { eventually } from '../helpers/wait';
import { connectDevice, enableSimpleApi, labelPin, lockPin, rateHeaders, setPlan, type DeviceConnection } from '../external/fixtures';
import { keys } from '../../common/redis-keys';

let stack: Stack;
let owner: TestUser;
let projectId: string;
const connections: DeviceConnection[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'enterprise');
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);
afterAll(async () => {
  await Promise.all(connections.map((c) => c.close()));
  await stack.stop();
});

/** A device with the simple interface on, and its `iot_` token. */
async function simpleDevice(): Promise<{ id: string; token: string; iot: string }> {
  const device = await createDevice(stack.request, owner, projectId);
  return { ...device, iot: await enableSimpleApi(stack.request, owner, device.id) };
}

const simple = (method: string, path: string, iot: string, query: Record<string, string> = {}, body?: unknown) =>
  stack.request(method, `/external/api${path}?${new URLSearchParams({ token: iot, ...query })}`, { body });

function expectError(res: { status: number; body: unknown }, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ success: false, error: { code, message: expect.any(String) } });
}

async function latest(deviceId: string, pin: string): Promise<{ value: string; updatedAt: string } | null> {
  const json = await stack.redis.hget(keys.devicePins(deviceId), pin);
  return json ? JSON.parse(json) : null;
}

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

describe('GET /update and /get (SPEC §4.7)', () => {
  it('stores the value with a history point and reads it back; fields beside success', async () => {
    const device = await simpleDevice();
    const update = await simple('GET', '/update', device.iot, { pin: 'V4', value: 'hello world' });
    expect(update.status).toBe(200);
    expect(update.body).toEqual({
      success: true,
      pin: 'V4',
      value: 'hello world',
      delivered: false,
      commandId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(rateHeaders(update.headers)).toMatchObject({ limit: 1000 });
    const stored = await latest(device.id, 'V4');
    expect(stored?.value).toBe('hello world');
    expect(await stack.history(device.id, 'V4')).toHaveLength(1);

    const get = await simple('GET', '/get', device.iot, { pin: 'v4' });
    expect(get.status).toBe(200);
    expect(get.body).toEqual({ success: true, pin: 'V4', value: 'hello world', updatedAt: stored?.updatedAt });
  });

  it('delivers to an online device (delivered true)', async () => {
    const device = await simpleDevice();
    const connection = await connectDevice(stack, device);
    connections.push(connection);
    const res = await simple('GET', '/update', device.iot, { pin: 'D7', value: '1' });
    expect(res.body).toEqual({
      success: true,
      pin: 'D7',
      value: '1',
      delivered: true,
      commandId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    await eventually(() => expect(connection.commands).toEqual([{ pin: 'D7', value: '1' }]));
  });

  it('accepts the wide pin ranges of this interface: D0–D255 and A0–A255 (SPEC §8)', async () => {
    const device = await simpleDevice();
    const connection = await connectDevice(stack, device);
    connections.push(connection);
    for (const pin of ['D255', 'A255', 'A16', 'D100', 'V255']) {
      const res = await simple('GET', '/update', device.iot, { pin, value: '1' });
      expect(res.status).toBe(200);
      expect(res.body.pin).toBe(pin);
      expect((await simple('GET', '/get', device.iot, { pin })).body.value).toBe('1');
    }
    await eventually(() => expect(connection.commands.map((c) => c.pin)).toEqual(['D255', 'A255', 'A16', 'D100', 'V255']));
    for (const pin of ['D256', 'A256', 'V256', 'X1', '']) {
      expectError(await simple('GET', '/update', device.iot, { pin, value: '1' }), 400, 'INVALID_PIN');
    }
  });

  it('400 INVALID_PIN when pin or value is missing', async () => {
    const device = await simpleDevice();
    for (const query of [{ value: '1' }, { pin: 'V1' }] as Record<string, string>[]) {
      const res = await simple('GET', '/update', device.iot, query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_PIN');
    }
    const get = await simple('GET', '/get', device.iot);
    expect(get.status).toBe(400);
    expect(get.body.error.code).toBe('INVALID_PIN');
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(0);
  });

  it("400 VALUE_TOO_LARGE beyond the pin type's bytes, 403 PIN_LOCKED for a locked pin; nothing stored", async () => {
    const device = await simpleDevice();
    expectError(await simple('GET', '/update', device.iot, { pin: 'V1', value: 'x'.repeat(1025) }), 400, 'VALUE_TOO_LARGE');
    expectError(await simple('GET', '/update', device.iot, { pin: 'D200', value: 'x'.repeat(17) }), 400, 'VALUE_TOO_LARGE');
    await lockPin(stack.request, owner, device.id, 'V2');
    expectError(await simple('GET', '/update', device.iot, { pin: 'V2', value: '1' }), 403, 'PIN_LOCKED');
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(0);
  });

  it('404 PIN_NOT_FOUND for a pin never recorded', async () => {
    const device = await simpleDevice();
    expectError(await simple('GET', '/get', device.iot, { pin: 'V0' }), 404, 'PIN_NOT_FOUND');
  });
});

describe('GET /get-all and /is-online (SPEC §4.7)', () => {
  it('returns only the recorded pins, keyed by name, with label and updatedAt', async () => {
    const device = await simpleDevice();
    expect((await simple('GET', '/get-all', device.iot)).body).toEqual({ success: true, deviceId: device.id, pins: {} });
    await simple('GET', '/update', device.iot, { pin: 'V1', value: '3.5' });
    await simple('GET', '/update', device.iot, { pin: 'D2', value: '0' });
    await labelPin(stack.request, owner, projectId, device.id, 1, 'Humidity');
    const res = await simple('GET', '/get-all', device.iot);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      deviceId: device.id,
      pins: {
        D2: { value: '0', label: null, updatedAt: (await latest(device.id, 'D2'))?.updatedAt },
        V1: { value: '3.5', label: 'Humidity', updatedAt: (await latest(device.id, 'V1'))?.updatedAt },
      },
    });
  });

  it('reports offline with nulls for a device never seen, then the mirror once it is online', async () => {
    const device = await simpleDevice();
    const never = (await simple('GET', '/is-online', device.iot)).body;
    expect(never).toMatchObject({ success: true, deviceId: device.id, isOnline: false, lastSeenAt: null });
    // The twin's start writes `offline` with its own time to a mirror that has no status yet: the
    // answer is null before that write and the mirror's time after it, never anything else.
    const offlineSince = (await stack.redis.hget(keys.deviceState(device.id), 'statusChangedAt')) ?? null;
    expect([null, offlineSince]).toContainEqual(never.statusChangedAt);
    connections.push(await connectDevice(stack, device));
    const state = await stack.redis.hgetall(keys.deviceState(device.id));
    expect((await simple('GET', '/is-online', device.iot)).body).toEqual({
      success: true,
      deviceId: device.id,
      isOnline: true,
      lastSeenAt: state.lastSeen ?? null,
      statusChangedAt: iso,
    });
  });
});

describe('POST /notify (SPEC §4.7, §8)', () => {
  it('answers the notificationId and stores the notification; title and priority have defaults', async () => {
    const device = await simpleDevice();
    const res = await simple('POST', '/notify', device.iot, {}, { message: 'Tank empty' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, notificationId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const record = await eventually(async () => {
      const json = await stack.redis.get(keys.notification(res.body.notificationId));
      if (!json) throw new Error('not stored yet');
      return JSON.parse(json);
    });
    expect(record).toEqual({
      id: res.body.notificationId,
      projectId,
      deviceId: device.id,
      ruleId: null,
      type: 'device',
      title: 'Device Notification',
      message: 'Tank empty',
      priority: 'normal',
      channels: ['inApp'],
      read: false,
      createdAt: iso,
    });
  });

  it.each([
    ['no message', {}],
    ['a message over 500', { message: 'm'.repeat(501) }],
    ['a title over 100', { message: 'm', title: 't'.repeat(101) }],
    ['an unknown priority', { message: 'm', priority: 'critical' }],
  ])('400 VALIDATION_ERROR for %s', async (_what, body) => {
    const device = await simpleDevice();
    const res = await simple('POST', '/notify', device.iot, {}, body);
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('POST /batch-update (SPEC §4.7 rule 3, §8)', () => {
  it('stores the entries; a locked pin and an oversized value are skipped with delivered false; updated counts the entries', async () => {
    const device = await simpleDevice();
    await lockPin(stack.request, owner, device.id, 'V2');
    const res = await simple(
      'POST',
      '/batch-update',
      device.iot,
      {},
      {
        pins: [
          { pin: 'V1', value: '10' },
          { pin: 'V2', value: '20' },
          { pin: 'A12', value: '30' },
          { pin: 'A3', value: '12345678901234567' },
        ],
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      updated: 4,
      results: [
        { pin: 'V1', delivered: false, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
        { pin: 'V2', delivered: false, commandId: null },
        { pin: 'A12', delivered: false, commandId: expect.stringMatching(/^[0-9a-f-]{36}$/) },
        { pin: 'A3', delivered: false, commandId: null },
      ],
    });
    expect((await latest(device.id, 'V1'))?.value).toBe('10');
    expect((await latest(device.id, 'A12'))?.value).toBe('30');
    expect(await latest(device.id, 'V2')).toBeNull();
    expect(await latest(device.id, 'A3')).toBeNull();
  });

  it('rejects 51 entries with 400 INVALID_PIN and writes nothing; 50 are fine', async () => {
    const device = await simpleDevice();
    const entries = (n: number) => Array.from({ length: n }, (_, i) => ({ pin: `D${i}`, value: '1' }));
    const tooMany = await simple('POST', '/batch-update', device.iot, {}, { pins: entries(51) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('INVALID_PIN');
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(0);
    const fifty = await simple('POST', '/batch-update', device.iot, {}, { pins: entries(50) });
    expect(fifty.body.updated).toBe(50);
    expect(await stack.redis.hlen(keys.devicePins(device.id))).toBe(50);
  });
});
