import { gzipSync } from 'node:zlib';
import { setPlan, createApiKey } from '../external/fixtures';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { connectSocket, type ClientSocket } from '../helpers/socket';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process';

/** The cases issue 10 found, each against a gateway running as its own process. */

const MALFORMED = ['%FF', '%C3%28', '%E2%82', '%ED%A0%80'];

let gateway: GatewayProcess;
let user: TestUser;
let projectId: string;
let deviceId: string;
let widgetId: string;
let apiKey: string;

beforeAll(async () => {
  gateway = await startGatewayProcess();
  user = await registerUser(gateway.request);
  projectId = (await createProject(gateway.request, user)).id;
  deviceId = (await createDevice(gateway.request, user, projectId)).id;
  const widget = await gateway.request('POST', '/api/v1/widgets', {
    token: user.token,
    body: { type: 'GAUGE', projectId, deviceId, pin: 1, layout: { x: 0, y: 0, w: 1, h: 1 }, config: {} },
  });
  widgetId = widget.body.data.id;
  await setPlan(gateway.request, user, 'pro');
  apiKey = (await createApiKey(gateway.request, user)).key;
}, 90_000);

afterAll(async () => {
  // Nothing above was survived only thanks to the process guards: each case is handled where it arises.
  const metrics = await gateway?.metrics();
  await gateway?.stop();
  expect(metrics).toMatch(/^dds_process_faults_total 0$/m);
});

afterEach(() => {
  expect(gateway.exitCode()).toBeUndefined();
});

async function stillServing(): Promise<void> {
  const health = await gateway.request('GET', '/healthz');
  expect(health.status).toBe(200);
  expect(gateway.exitCode()).toBeUndefined();
}

describe('1. a Socket.IO ack that is not a function, or a payload of the wrong shape, leaves the node running', () => {
  let socket: ClientSocket;
  beforeEach(async () => {
    socket = await connectSocket(gateway.baseUrl, user.token);
  });
  afterEach(() => {
    socket.close();
  });

  const raw = () => socket as unknown as { emit(event: string, ...args: unknown[]): void };

  it.each(['subscribe', 'unsubscribe', 'pin:write'])('%s with a string as its ack', async (event) => {
    const errors: unknown[] = [];
    socket.on('error', (e) => errors.push(e));
    raw().emit(event, { projectId: 'x' }, 'not-a-function');
    raw().emit(event, { deviceId, pin: 'V1', value: '1' }, 42);
    raw().emit(event, 'wrong shape', { not: 'a function' }, null);
    // A well-formed call on the same socket still gets its answer afterwards.
    const ack = await (
      socket.timeout(5000) as unknown as { emitWithAck(ev: string, p: unknown): Promise<{ success: boolean }> }
    ).emitWithAck('subscribe', { projectId });
    expect(ack).toMatchObject({ success: true });
    expect(socket.connected).toBe(true);
    await stillServing();
    for (const e of errors) expect(e).toEqual({ code: 'VALIDATION_ERROR', message: expect.any(String) });
  });

  it('a payload of the wrong shape with no ack at all is answered with nothing or an error event', async () => {
    for (const event of ['subscribe', 'unsubscribe', 'pin:write']) {
      raw().emit(event);
      raw().emit(event, null);
      raw().emit(event, [1, 2, 3]);
    }
    // Events on one socket are handled in order: once a well-formed call after them is answered,
    // the server has handled those.
    const ack = await (
      socket.timeout(5000) as unknown as { emitWithAck(ev: string, p: unknown): Promise<{ success: boolean }> }
    ).emitWithAck('subscribe', { projectId });
    expect(ack).toMatchObject({ success: true });
    await stillServing();
  });
});

describe('2. malformed percent-encoding in a path parameter is a 4xx, never a 500', () => {
  const management = (bad: string): [string, string][] => [
    ['GET', `/api/v1/devices/${bad}`],
    ['GET', `/api/v1/projects/${bad}`],
    ['GET', `/api/v1/widgets/${bad}`],
    ['PATCH', `/api/v1/notifications/rules/${bad}`],
    ['GET', `/api/v1/notifications/${bad}`],
    ['DELETE', `/api/v1/projects/${projectId}/members/${bad}`],
    ['GET', `/api/v1/data/${deviceId}/${bad}`],
    ['PUT', `/api/v1/devices/${deviceId}/pins/${bad}/lock`],
  ];

  it.each(MALFORMED)('management interface, %s: 400 VALIDATION_ERROR', async (bad) => {
    for (const [method, path] of management(bad)) {
      const res = await gateway.request(method, path, { token: user.token, body: method === 'GET' ? undefined : {} });
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status: 400, code: 'VALIDATION_ERROR' });
    }
  });

  it.each(MALFORMED)('external REST, %s: DEVICE_NOT_FOUND for a device id, INVALID_PIN for a pin', async (bad) => {
    const headers = { 'x-api-key': apiKey };
    const cases: [string, string, number, string][] = [
      ['GET', `/external/api/v1/devices/${bad}`, 404, 'DEVICE_NOT_FOUND'],
      ['GET', `/external/api/v1/devices/${bad}/pins/V1`, 404, 'DEVICE_NOT_FOUND'],
      ['GET', `/external/api/v1/devices/${deviceId}/pins/${bad}`, 400, 'INVALID_PIN'],
      ['PUT', `/external/api/v1/devices/${deviceId}/pins/${bad}`, 400, 'INVALID_PIN'],
      ['GET', `/external/api/v1/devices/${deviceId}/history/${bad}`, 400, 'INVALID_PIN'],
    ];
    for (const [method, path, status, code] of cases) {
      const res = await gateway.request(method, path, { headers, body: method === 'PUT' ? { value: '1' } : undefined });
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status, code });
    }
  });
});

describe('3. a body the service cannot decode is a 4xx with the envelope', () => {
  async function send(path: string, encoding: string, body: Buffer, headers: Record<string, string> = {}, method = 'POST') {
    const res = await fetch(`${gateway.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'content-encoding': encoding, ...headers },
      body: new Uint8Array(body),
    });
    return { status: res.status, body: (await res.json()) as { success: boolean; error: { code: string } } };
  }

  const garbage = Buffer.from('this is not compressed at all, just bytes \u00ff\u0000');
  const truncatedGzip = gzipSync(Buffer.from(JSON.stringify({ name: 'x', description: 'y' }))).subarray(0, 12);

  it.each([
    ['gzip garbage', 'gzip', garbage],
    ['truncated gzip', 'gzip', truncatedGzip],
    ['deflate garbage', 'deflate', garbage],
    ['br garbage', 'br', garbage],
  ])('%s: 400 VALIDATION_ERROR', async (_name, encoding, body) => {
    const res = await send('/api/v1/projects', encoding, body, { authorization: `Bearer ${user.token}` });
    expect(res).toEqual({ status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String) } } });
  });

  it('an encoding the service does not speak: 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const res = await send('/api/v1/projects', 'compress', garbage, { authorization: `Bearer ${user.token}` });
    expect(res).toEqual({ status: 415, body: { success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.any(String) } } });
  });

  it.each(['gzip', 'br'])('the same on the external REST interface: %s garbage in a pin write is 400', async (encoding) => {
    const res = await send(`/external/api/v1/devices/${deviceId}/pins/V1`, encoding, garbage, { 'x-api-key': apiKey }, 'PUT');
    expect(res).toEqual({ status: 400, body: { success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String) } } });
  });
});

describe('4. free-form JSON nested too deep is a 400, not a 500', () => {
  function nested(depth: number): unknown {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  }

  it('POST /widgets with config nested 3,000 levels deep', async () => {
    const res = await gateway.request('POST', '/api/v1/widgets', {
      token: user.token,
      body: { type: 'GAUGE', projectId, deviceId, pin: 2, layout: { x: 0, y: 0, w: 1, h: 1 }, config: { deep: nested(3000) } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('PATCH /widgets/{id} with config nested 3,000 levels deep', async () => {
    const res = await gateway.request('PATCH', `/api/v1/widgets/${widgetId}`, {
      token: user.token,
      body: { config: { deep: nested(3000) } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('config nesting within the limit is still accepted', async () => {
    const res = await gateway.request('PATCH', `/api/v1/widgets/${widgetId}`, {
      token: user.token,
      body: { config: { deep: nested(10) } },
    });
    expect(res.status).toBe(200);
  });
});

describe('5. a pin value holding a lone UTF-16 surrogate is a 400, never a 500 (issue 35, finding 7)', () => {
  const LONE = ['\ud800', 'a\udfffb', '\udc00\ud800'];
  const outcome = (res: { status: number; body: { error?: { code?: string } } }) => ({ status: res.status, code: res.body?.error?.code });

  it.each(LONE)('management POST /data/{id}/{pin} and /bulk: VALIDATION_ERROR, %j', async (value) => {
    const one = await gateway.request('POST', `/api/v1/data/${deviceId}/1`, { token: user.token, body: { value } });
    expect(outcome(one)).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    const bulk = await gateway.request('POST', `/api/v1/data/${deviceId}/bulk`, {
      token: user.token,
      body: { readings: [{ pin: 1, value, timestamp: new Date().toISOString() }] },
    });
    expect(outcome(bulk)).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it.each(LONE)(
    'external PUT /devices/{id}/pins/V1 and PATCH /devices/{id}/pins: INVALID_PIN (its "payload invalid"), %j',
    async (value) => {
      const headers = { 'x-api-key': apiKey };
      const put = await gateway.request('PUT', `/external/api/v1/devices/${deviceId}/pins/V1`, { headers, body: { value } });
      expect(outcome(put)).toEqual({ status: 400, code: 'INVALID_PIN' });
      const patch = await gateway.request('PATCH', `/external/api/v1/devices/${deviceId}/pins`, {
        headers,
        body: { pins: [{ pin: 'V1', value }] },
      });
      expect(outcome(patch)).toEqual({ status: 400, code: 'INVALID_PIN' });
    },
  );

  it('Socket.IO pin:write: VALIDATION_ERROR', async () => {
    const socket = await connectSocket(gateway.baseUrl, user.token);
    try {
      const emit = socket.timeout(5000) as unknown as {
        emitWithAck(ev: string, p: unknown): Promise<{ success: boolean; error?: { code: string } }>;
      };
      const ack = await emit.emitWithAck('pin:write', { deviceId, pin: 'V1', value: '\ud800' });
      expect(ack).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    } finally {
      socket.close();
    }
  });

  it('a well-formed pair (an emoji) is still a value', async () => {
    const res = await gateway.request('POST', `/api/v1/data/${deviceId}/1`, { token: user.token, body: { value: '\ud83d\ude00' } });
    expect(res.status).toBe(201);
    expect(res.body.data.value).toBe('\ud83d\ude00');
  });
});
