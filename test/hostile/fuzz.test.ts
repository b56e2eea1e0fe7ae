import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { createApiKey, enableSimpleApi, setPlan } from '../external/fixtures';
import { addMember, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { connectSocket, type ClientSocket } from '../helpers/socket';
import { ADMIN_TOKEN, startStack, type Stack } from '../helpers/stack';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process';
import { listRoutes, type RouteEntry } from '../../gateway/http/route-table';

/**
 * Property-based fuzz of every route the app registers (path params, query, body, encodings)
 * and every Socket.IO event a socket listens to (payload shapes, acks that are not functions,
 * deep and huge payloads, odd strings), against a gateway running as its own process. It fails on
 * any 5xx, any ack carrying a 5xx code, or the process exiting. Figures are printed at the end.
 */

const RUNS_PER_ROUTE = 50;
const RUNS_PER_EVENT = 200;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

let stack: Stack;
let gateway: GatewayProcess;
let owner: TestUser;
let member: TestUser;
let ids: Record<string, string[]>;
let projectId: string;
let deviceId: string;
let apiKey: string;
let simpleToken: string;
const statuses = new Map<number, number>();
const fiveHundreds: string[] = [];
/** 429s without Retry-After, 403 QUOTA_EXCEEDED without its details: the new answers of docs/limits.md, each as documented. */
const malformedLimits: string[] = [];

beforeAll(async () => {
  // The in-process stack gives the route table, the socket's event names and a twin worker on
  // the task queue the gateway process uses (so twin calls answer instead of timing out).
  stack = await startStack({ worker: true });
  gateway = await startGatewayProcess({
    TEMPORAL_TASK_QUEUE: stack.config.TEMPORAL_TASK_QUEUE,
    MQTT_TOPIC_ROOT: stack.config.MQTT_TOPIC_ROOT,
    RATE_LIMIT_MULTIPLIER: '1000',
    // Its wrong-password logins come from 127.0.0.1, the address every test file shares in one
    // Redis: counted against the login throttle, they would refuse the other files' logins.
    LOGIN_MAX_FAILURES_PER_ADDRESS: '1000000',
  });
  const request = gateway.request;
  owner = await registerUser(request);
  member = await registerUser(request);
  const project = await createProject(request, owner);
  await addMember(request, owner, project.id, member, 'viewer');
  const device = await createDevice(request, owner, project.id);
  const widget = await request('POST', '/api/v1/widgets', {
    token: owner.token,
    body: { type: 'KEYPAD', projectId: project.id, deviceId: device.id, pin: 4, layout: { x: 0, y: 0, w: 1, h: 1 }, config: {} },
  });
  const rule = await request('POST', '/api/v1/notifications/rules', {
    token: owner.token,
    body: {
      projectId: project.id,
      deviceId: device.id,
      pin: 1,
      condition: 'gt',
      threshold: 5,
      message: 'hot {value}',
      channels: ['inApp'],
    },
  });
  await setPlan(request, owner, 'enterprise');
  const key = await createApiKey(request, owner);
  apiKey = key.key;
  simpleToken = await enableSimpleApi(request, owner, device.id);
  projectId = project.id;
  deviceId = device.id;
  ids = {
    deviceId: [device.id],
    projectId: [project.id],
    widgetId: [widget.body.data.id],
    ruleId: [rule.body.data.id],
    userId: [owner.id, member.id],
    keyId: [key.id],
    notificationId: [],
    pin: ['V1', '1', '4', 'D3', 'A2', 'v255'],
  };
}, 120_000);

afterAll(async () => {
  const exitCode = gateway?.exitCode();
  const metrics = await gateway?.metrics();
  await gateway?.stop();
  await stack?.stop();
  expect(exitCode).toBeUndefined();
  // No fault was merely survived (logged and counted by the process guards) either.
  expect(metrics).toMatch(/^dds_process_faults_total 0$/m);
});

// ---- generators -------------------------------------------------------------------------------

function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80'; // a lone surrogate: the one thing encodeURIComponent refuses
  }
}

const MALFORMED = ['%FF', '%C3%28', '%E2%82', '%ED%A0%80', '%', '%%', '%2', '%G0', '%00', '%2F', '%2e%2e', '%0A'];
const ODD = [
  '',
  ' ',
  '.',
  '..',
  '-1',
  '0',
  '1e309',
  'NaN',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'V256',
  'D99',
  'A15',
  "'; DROP",
  '<script>',
  'x'.repeat(5000),
];

const oddString = fc.oneof(
  fc.constantFrom(...ODD),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 300 }),
  fc.uuid().map(String),
);

/** A raw (already encoded) path segment for a param: real ids, odd strings, malformed escapes. */
function segment(param: string): fc.Arbitrary<string> {
  const real = ids[param] ?? [];
  return fc.oneof(
    ...(real.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...real) }] : []),
    { weight: 2, arbitrary: fc.constantFrom(...MALFORMED) },
    { weight: 3, arbitrary: oddString.map(encode) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...MALFORMED), oddString.map(encode)).map(([a, b]) => a + b) },
  );
}

const QUERY_KEYS = [
  'projectId',
  'deviceId',
  'status',
  'page',
  'limit',
  'offset',
  'online',
  'from',
  'to',
  'aggregate',
  'interval',
  'format',
  'type',
  'unread',
  'pin',
  'value',
  '__proto__',
  'limit[]',
  'a[b]',
];
const queryValue = fc.oneof(
  fc.constantFrom(
    'raw',
    'avg',
    'max',
    '1m',
    '1d',
    'csv',
    'json',
    'true',
    'false',
    'online',
    '2026-01-01T00:00:00Z',
    '9999-99-99',
    '-5',
    '1000000',
    '0.5',
    'V1',
    '5',
    'threshold',
  ),
  fc.constantFrom(...MALFORMED),
  oddString.map(encode),
);
const query = fc.dictionary(fc.constantFrom(...QUERY_KEYS), queryValue, { maxKeys: 5 }).map((q) =>
  Object.entries(q)
    .map(([k, v]) => `${encodeURIComponent(k)}=${v}`)
    .join('&'),
);

const BODY_KEYS = [
  'name',
  'description',
  'tags',
  'projectId',
  'deviceId',
  'type',
  'pin',
  'layout',
  'config',
  'value',
  'timestamp',
  'readings',
  'pins',
  'condition',
  'threshold',
  'duration',
  'message',
  'channels',
  'enabled',
  'email',
  'password',
  'role',
  'plan',
  'title',
  'priority',
  'expiresAt',
  '__proto__',
  'constructor',
];

/**
 * Objects and arrays nested `depth` deep. fast-check prints a failing input with a recursive
 * stringify that overflows the stack on these (hiding the failure behind a RangeError), so the
 * outermost level prints as `deep(n)` instead; the symbol key is not sent (JSON leaves it out).
 */
function deep(depth: number, leaf: unknown = 'leaf'): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return Object.assign(value as object, { [fc.toStringMethod]: () => `deep(${depth})` });
}

function bodyValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(...Object.values(ids).flat()),
    fc.constantFrom(
      'GAUGE',
      'KEYPAD',
      'gt',
      'no_data',
      'inApp',
      'email',
      'pro',
      'admin',
      'high',
      { x: 0, y: 0, w: 1, h: 1 },
      [{ pin: 'V1', value: '1' }],
      [{ pin: 1, value: '2' }],
    ),
    oddString,
    fc.integer({ min: 20, max: 4000 }).map((d) => deep(d)),
  );
}

interface Body {
  raw: Buffer | undefined;
  headers: Record<string, string>;
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value) ?? 'null');

/** Built once the fixtures exist (bodies reuse their ids). */
function bodies(): fc.Arbitrary<Body> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .dictionary(fc.constantFrom(...BODY_KEYS), bodyValue(), { maxKeys: 8 })
        .map((b) => ({ raw: json(b), headers: { 'content-type': 'application/json' } })),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 5 }).map((b) => ({ raw: json(b), headers: { 'content-type': 'application/json' } })) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 30, max: 4000 })
        .map((d) => ({ raw: json({ config: deep(d), value: deep(d) }), headers: { 'content-type': 'application/json' } })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(300_000, 1_000_000)
        .map((n) => ({ raw: json({ value: 'x'.repeat(n) }), headers: { 'content-type': 'application/json' } })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom('gzip', 'br', 'deflate', 'compress', 'identity', 'x-garbage', 'gzip, br'),
          fc.boolean(),
          fc.jsonValue({ maxDepth: 2 }),
        )
        .map(([encoding, valid, b]) => ({
          raw: encoding === 'gzip' && valid ? gzipSync(json(b)) : Buffer.from('garbage \u00ff\u0000 not compressed'),
          headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            'application/json',
            'application/json; charset=utf-16',
            'application/json; charset=koi8-r',
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data',
          ),
          fc.string({ unit: 'binary', maxLength: 200 }),
        )
        .map(([type, text]) => ({ raw: Buffer.from(text), headers: { 'content-type': type } })),
    },
    { weight: 1, arbitrary: fc.constant({ raw: undefined, headers: {} }) },
  );
}

/**
 * The interface's credentials, usually valid (so the fuzz reaches the handlers), sometimes not;
 * `limited`: the free-plan viewer member's bearer on the management API (the owner's credentials
 * elsewhere). RATE_LIMIT_MULTIPLIER keeps both users far under their management rate limits
 * (docs/limits.md); a 429 or 403 QUOTA_EXCEEDED is still a valid answer, checked for its form.
 */
const credentials = fc.constantFrom('valid', 'valid', 'valid', 'valid', 'valid', 'limited', 'missing', 'garbage');

/** The names of the `:params` in a route template. */
const paramsOf = (template: string): string[] => [...template.matchAll(/:(\w+)/g)].map((m) => m[1] as string);

function authOf(route: RouteEntry, kind: string): { headers: Record<string, string>; token: string | null } {
  const external = route.template.startsWith('/external/api/v1');
  const simple = !external && route.template.startsWith('/external/api');
  const garbage = kind === 'garbage';
  if (kind === 'missing') return { headers: {}, token: null };
  if (simple) return { headers: {}, token: garbage ? encodeURIComponent('iot_\u0000garbage') : simpleToken };
  if (external) return { headers: { 'x-api-key': garbage ? 'ddk_garbage' : apiKey }, token: null };
  const bearer = route.template.startsWith('/api/v1/admin') ? ADMIN_TOKEN : kind === 'limited' ? member.token : owner.token;
  return { headers: { authorization: `Bearer ${garbage ? 'garbage' : bearer}` }, token: null };
}

// ---- Socket.IO ------------------------------------------------------------------------------

/** Event names Socket.IO keeps for itself: a client cannot emit them. */
const RESERVED_EVENTS = new Set(['connect', 'connect_error', 'disconnect', 'disconnecting', 'newListener', 'removeListener']);

describe('socket fuzz', () => {
  let events: string[];
  let socket: ClientSocket;

  beforeAll(async () => {
    // The events a server socket listens to, read from a real connection to the in-process node.
    const probe = await connectSocket(stack.baseUrl, (await registerUser(stack.request)).token);
    const serverSocket = [...stack.composed.gateway.sockets.io.of('/').sockets.values()][0];
    // Less the names Socket.IO reserves (a listener of ours on `disconnect` is not an event a client can send).
    events =
      serverSocket
        ?.eventNames()
        .map(String)
        .filter((name) => !RESERVED_EVENTS.has(name)) ?? [];
    probe.close();
  });

  afterAll(() => socket?.close());

  it('knows the events a socket listens to', () => {
    expect(events).toEqual(expect.arrayContaining(['subscribe', 'unsubscribe', 'pin:write']));
  });

  it('no event arguments end the process or get a 5xx answer', async () => {
    socket = await connectSocket(gateway.baseUrl, owner.token);
    const acks = new Map<string, number>();
    const errors: unknown[] = [];
    socket.on('error', (e) => errors.push(e));
    const payload = fc.oneof(
      fc.constantFrom({ projectId }, { deviceId }, { deviceId, pin: 'V1', value: '21.5' }),
      fc.record({ projectId: fc.oneof(fc.constant(projectId), oddString) }, { requiredKeys: [] }),
      fc.record(
        {
          deviceId: fc.oneof(fc.constant(deviceId), oddString),
          pin: fc.oneof(fc.constantFrom('V1', 'V4', 'D3', 'A2'), oddString, fc.integer()),
          value: fc.oneof(oddString, fc.constant('x'.repeat(2000)), fc.jsonValue()),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue({ maxDepth: 4 }),
      // Up to 1000 levels: this test's own client encodes with JSON.stringify, whose recursion overflowed at 2938.
      fc.integer({ min: 20, max: 1000 }).map((d) => deep(d)),
      fc.constantFrom(undefined, null, 'x'.repeat(100_000)),
    );
    const ackArg = fc.constantFrom('function', 'none', 'string', 'number', 'object', 'null', 'extra-then-function');
    let tried = 0;
    let unanswered = 0;
    let reconnects = 0;
    // Socket.IO itself listens to `error` (a no-op, never acknowledged); every other listener is ours.
    const answering = events.filter((e) => e !== 'error');
    const extras: Record<string, unknown[]> = { none: [], string: ['not-a-function'], number: [42], object: [{ a: 1 }], null: [null] };
    for (const event of [...events, 'unknown:event']) {
      await fc.assert(
        fc.asyncProperty(payload, ackArg, async (p, ack) => {
          tried++;
          if (!socket.connected) {
            reconnects++;
            socket.close();
            socket = await connectSocket(gateway.baseUrl, owner.token);
            socket.on('error', (e) => errors.push(e));
          }
          const raw = socket as unknown as { emit(event: string, ...args: unknown[]): void };
          if (answering.includes(event) && (ack === 'function' || ack === 'extra-then-function')) {
            const args = ack === 'function' ? [p] : [p, 'extra', 42];
            const answer = await new Promise<unknown>((resolve) => {
              const timer = setTimeout(() => resolve('no answer'), 3000);
              raw.emit(event, ...args, (a: unknown) => {
                clearTimeout(timer);
                resolve(a);
              });
            });
            if (answer === 'no answer') unanswered++;
            const code = (answer as { error?: { code?: string } } | undefined)?.error?.code ?? (answer === 'no answer' ? 'none' : 'ok');
            acks.set(code, (acks.get(code) ?? 0) + 1);
            if (code === 'INTERNAL_ERROR' || code === 'SERVICE_UNAVAILABLE') return false;
          } else {
            raw.emit(event, p, ...(extras[ack] ?? [() => undefined])); // a real ack no listener of ours answers
          }
          return gateway.exitCode() === undefined;
        }),
        { numRuns: RUNS_PER_EVENT, seed: SEED, endOnFailure: true },
      );
    }
    const health = await gateway.request('GET', '/healthz');
    const seen = [...acks.entries()].map(([c, n]) => `${c}×${n}`).join(' ');
    console.log(
      `Socket.IO fuzz (seed ${SEED}): ${tried} emits over ${events.length} events (+1 unknown name); acks ${seen}; error events ${errors.length}; unanswered ${unanswered}; reconnects ${reconnects}`,
    );
    expect(health.status).toBe(200);
    expect(gateway.exitCode()).toBeUndefined();
  }, 120_000);
});

// ---- HTTP ---------------------------------------------------------------------------------------

async function send(route: RouteEntry, segments: Record<string, string>, q: string, b: Body, auth: string): Promise<number> {
  const path = route.template.replace(/:(\w+)/g, (_m, name: string) => segments[name] ?? 'x');
  const { headers, token } = authOf(route, auth);
  const search = [q, token ? `token=${token}` : ''].filter(Boolean).join('&');
  const hasBody = route.method !== 'GET' && route.method !== 'HEAD' && b.raw !== undefined;
  const res = await fetch(`${gateway.baseUrl}${path}${search ? `?${search}` : ''}`, {
    method: route.method,
    headers: { ...headers, ...(hasBody ? b.headers : {}) },
    body: hasBody ? new Uint8Array(b.raw as Buffer) : undefined,
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const answer = `${route.method} ${path} -> ${res.status} ${text.slice(0, 200)}`;
  if (res.status === 429 && !/^[1-9]\d*$/.test(res.headers.get('retry-after') ?? '')) malformedLimits.push(`no Retry-After: ${answer}`);
  if (res.status === 403 && text.includes('QUOTA_EXCEEDED') && !/"details":\{"resource":"\w+","limit":\d+,"used":\d+\}/.test(text))
    malformedLimits.push(answer);
  if (res.status >= 500) fiveHundreds.push(`${route.method} ${path}?${search} -> ${res.status} ${text.slice(0, 200)}`);
  return res.status;
}

/** Destructive and session-ending routes go last (and the HTTP fuzz runs after the socket fuzz), so the others still meet live fixtures. */
function rank(route: RouteEntry): number {
  if (route.template.includes('/auth/logout') || route.template.includes('/admin/')) return 3;
  if (route.method === 'DELETE' || route.template.endsWith('regenerate-token')) return 2;
  return route.method === 'GET' ? 0 : 1;
}

describe('fuzz', () => {
  let routes: RouteEntry[];
  let tried = 0;

  beforeAll(() => {
    routes = listRoutes(stack.composed.gateway.app)
      .filter((r) => !['/healthz', '/readyz', '/metrics'].includes(r.template))
      .sort((a, b) => rank(a) - rank(b));
  });

  it("reads every interface's routes from the router (so a new route is fuzzed without a list to update)", () => {
    expect(routes.length).toBeGreaterThan(50);
    for (const prefix of ['/api/v1/', '/external/api/v1/', '/external/api/'])
      expect(routes.some((r) => r.template.startsWith(prefix))).toBe(true);
    expect(routes).toContainEqual({ method: 'PATCH', template: '/api/v1/widgets/:widgetId' });
    expect(routes).toContainEqual({ method: 'GET', template: '/external/api/v1/devices/:deviceId/history/:pin' });
    expect(routes).toContainEqual({ method: 'POST', template: '/external/api/batch-update' });
  });

  it('no route answers 5xx to any path params, query or body, and the process stays up', async () => {
    const started = Date.now();
    const body = bodies();
    for (const route of routes) {
      const segments = fc.record(
        Object.fromEntries(paramsOf(route.template).map((p) => [p, segment(p)])) as Record<string, fc.Arbitrary<string>>,
      );
      await fc.assert(
        fc.asyncProperty(segments, query, body, credentials, async (s, q, b, auth) => {
          tried++;
          const status = await send(route, s, q, b, auth);
          return status < 500 && gateway.exitCode() === undefined;
        }),
        { numRuns: RUNS_PER_ROUTE, seed: SEED, endOnFailure: true },
      );
    }
    const health = await gateway.request('GET', '/healthz');
    const ms = Date.now() - started;
    const seen = [...statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    console.log(
      `HTTP fuzz (seed ${SEED}): ${tried} requests over ${routes.length} routes in ${ms} ms; statuses ${seen}; 5xx ${fiveHundreds.length}`,
    );
    expect(fiveHundreds).toEqual([]);
    expect(malformedLimits).toEqual([]);
    expect(health.status).toBe(200);
    expect(gateway.exitCode()).toBeUndefined();
  }, 120_000);
});
