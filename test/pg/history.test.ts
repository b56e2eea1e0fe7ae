/**
 * Pin history in PostgreSQL, through the service: points written through every door read back
 * raw and aggregated (from the rollups) exactly as computed by hand from the points; every
 * accepted write is a point, whatever its value; a range delete leaves the rollups equal to the
 * points that are left.
 */
import { createPgPool, type Pool } from '../../store/pg/pool';
import { createDevice, createProject, registerUser, connectAsDevice, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { createApiKey, enableSimpleApi, setPlan } from '../external/fixtures';
import { keys } from '../../common/redis-keys';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const INTERVALS = { '1m': MINUTE, '5m': 5 * MINUTE, '1h': HOUR, '1d': DAY } as const;
const FNS = ['avg', 'min', 'max', 'sum'] as const;

interface Point {
  timestamp: string;
  value: number;
}

let stack: Stack;
let owner: TestUser;
let projectId: string;
let pool: Pool;

beforeAll(async () => {
  stack = await startStack();
  pool = createPgPool(stack.config.DATABASE_URL as string, 'test-history', { max: 2 });
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'enterprise');
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);
afterAll(async () => {
  await pool.end();
  await stack.stop();
});

const api = (method: string, path: string, body?: unknown) => stack.request(method, `/api/v1${path}`, { token: owner.token, body });

function query(params: Record<string, string | number>): string {
  return new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
}

/** Buckets of `points` in [from, to] computed here, the way SPEC §4.3 describes them. */
function byHand(points: readonly Point[], fn: (typeof FNS)[number], size: number, from: number, to: number): Point[] {
  const buckets = new Map<number, number[]>();
  for (const p of points) {
    const ms = Date.parse(p.timestamp);
    if (ms < from || ms > to) continue;
    const bucket = ms - (ms % size);
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), p.value]);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([bucket, values]) => {
      const sum = values.reduce((a, b) => a + b, 0);
      const value = { avg: sum / values.length, min: Math.min(...values), max: Math.max(...values), sum }[fn];
      return { timestamp: new Date(bucket).toISOString(), value };
    });
}

function expectSame(got: Point[], expected: Point[]): void {
  expect(got.map((p) => p.timestamp)).toEqual(expected.map((p) => p.timestamp));
  got.forEach((p, i) => expect(p.value).toBeCloseTo((expected[i] as Point).value, 9));
}

/** The rollups of a pin, and the same computed from its points: they must always agree. */
async function rollupsAndPoints(deviceId: string, pin: string) {
  const rollups = await pool.query(
    `SELECT minute, count::int, sum::float8, min, max FROM rollup_1m WHERE device_id = $1 AND pin = $2 ORDER BY minute`,
    [deviceId, pin],
  );
  const points = await pool.query(
    `SELECT date_trunc('minute', ts) AS minute, count(*)::int AS count, sum(num) AS sum, min(num) AS min, max(num) AS max
     FROM points WHERE device_id = $1 AND pin = $2 AND num IS NOT NULL GROUP BY 1 ORDER BY 1`,
    [deviceId, pin],
  );
  return { rollups: rollups.rows, points: points.rows };
}

describe('history through every door', () => {
  it('reads back raw and aggregated, every aggregate at every interval equal to the hand-computed one', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const now = Date.now();
    // Imports spread over two days, at odd milliseconds, one time twice, and values that are not numbers.
    const spread = Array.from({ length: 120 }, (_, i) => ({
      pin: 5,
      value: i % 17 === 0 ? 'on' : String(((i * 37) % 101) / 4 - 7),
      timestamp: new Date(now - 2 * DAY + i * 23 * MINUTE + (i % 13) * 1_001 + (i === 60 ? -23 * MINUTE : 0)).toISOString(),
    }));
    // And a dense stretch, several points a minute, for windows that cut minutes.
    const denseStart = now - 3 * HOUR;
    const dense = Array.from({ length: 60 }, (_, i) => ({
      pin: 5,
      value: String((i * 7) % 23),
      timestamp: new Date(denseStart + i * 7_003).toISOString(),
    }));
    const imports = [...spread, ...dense];
    const bulk = await api('POST', `/data/${device.id}/bulk`, { readings: imports });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.written).toBe(imports.length);
    expect((await api('POST', `/data/${device.id}/5`, { value: '11.25', timestamp: new Date(now - HOUR).toISOString() })).status).toBe(201);
    expect((await api('POST', `/data/${device.id}/5`, { value: '3.5' })).status).toBe(201);
    const key = (await createApiKey(stack.request, owner)).key;
    const external = await stack.request('PUT', `/external/api/v1/devices/${device.id}/pins/V5`, {
      headers: { 'x-api-key': key },
      body: { value: '-2' },
    });
    expect(external.status).toBe(200);
    const iot = await enableSimpleApi(stack.request, owner, device.id);
    expect((await stack.request('GET', `/external/api/update?${query({ token: iot, pin: 'V5', value: '8' })}`)).status).toBe(200);
    const mqtt = await connectAsDevice(stack.config.MQTT_URL, device);
    await mqtt.publishAsync(`${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/V5`, '42.5', { qos: 1 });
    await mqtt.endAsync();
    await eventually(async () => expect(JSON.parse((await stack.redis.hget(keys.devicePins(device.id), 'V5')) ?? '{}').value).toBe('42.5'));

    const numeric = [...imports.map((r) => r.value), '11.25', '3.5', '-2', '8', '42.5'].filter((v) => v !== 'on').map(Number);
    const from = now - 3 * DAY;
    const to = Date.now() + MINUTE;
    const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString(), limit: 100_000 };
    const raw = await api('GET', `/data/${device.id}/5?${query(window)}`);
    expect(raw.status).toBe(200);
    const points: Point[] = raw.body.data.points;
    expect(points.map((p) => p.value).sort((a, b) => a - b)).toEqual([...numeric].sort((a, b) => a - b));
    expect(points.map((p) => p.timestamp)).toEqual([...points.map((p) => p.timestamp)].sort());
    const all = await stack.request('GET', `/external/api/v1/devices/${device.id}/history/V5?limit=1000`, {
      headers: { 'x-api-key': key },
    });
    expect(all.body.data).toHaveLength(imports.length + 5);
    expect(all.body.data.filter((p: { value: string }) => p.value === 'on')).toHaveLength(imports.filter((r) => r.value === 'on').length);

    const csv = await api('GET', `/data/${device.id}/5?${query({ ...window, format: 'csv' })}`);
    expect(csv.text).toBe(`timestamp,value\n${points.map((p) => `${p.timestamp},${p.value}\n`).join('')}`);

    // A window that cuts minutes at both ends, beside the wide one.
    const cutFrom = Date.parse(dense[10]?.timestamp as string) - 500;
    const cutTo = Date.parse(dense[50]?.timestamp as string) + 700;
    for (const [lo, hi] of [
      [from, to],
      [cutFrom, cutTo],
    ] as const) {
      for (const [interval, size] of Object.entries(INTERVALS)) {
        for (const fn of FNS) {
          const res = await api(
            'GET',
            `/data/${device.id}/5?${query({ from: new Date(lo).toISOString(), to: new Date(hi).toISOString(), aggregate: fn, interval, limit: 100_000 })}`,
          );
          expect(res.status).toBe(200);
          expectSame(res.body.data.points, byHand(points, fn, size, lo, hi));
        }
      }
    }
    const newestTwo = await api('GET', `/data/${device.id}/5?${query({ ...window, aggregate: 'sum', interval: '1h', limit: 2 })}`);
    expectSame(newestTwo.body.data.points, byHand(points, 'sum', HOUR, from, to).slice(-2));
    const { rollups, points: recomputed } = await rollupsAndPoints(device.id, 'V5');
    expect(rollups).toEqual(recomputed);
  });

  it('keeps every accepted write as a point: 200 concurrent writes of one value are 200 points', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const at = new Date().toISOString();
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => api('POST', `/data/${device.id}/7`, { value: '1', timestamp: at })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(201));
    expect(await stack.history(device.id, 'V7')).toHaveLength(200);
    const sum = await api('GET', `/data/${device.id}/7?${query({ aggregate: 'sum', interval: '1m' })}`);
    expect(sum.body.data.points).toEqual([{ timestamp: new Date(Date.parse(at) - (Date.parse(at) % MINUTE)).toISOString(), value: 200 }]);
  });

  it('keeps every imported reading as a point: bulk imports of one value at one time beside single writes of it', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const at = new Date().toISOString();
    const readings = Array.from({ length: 500 }, () => ({ pin: 9, value: '1', timestamp: at }));
    const answers = await Promise.all([
      api('POST', `/data/${device.id}/bulk`, { readings }),
      ...Array.from({ length: 50 }, () => api('POST', `/data/${device.id}/9`, { value: '1', timestamp: at })),
      api('POST', `/data/${device.id}/bulk`, { readings }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, ...Array(50).fill(201), 200]);
    expect(await stack.history(device.id, 'V9')).toHaveLength(1050);
    const sum = await api('GET', `/data/${device.id}/9?${query({ aggregate: 'sum', interval: '1m' })}`);
    expect(sum.body.data.points).toEqual([{ timestamp: new Date(Date.parse(at) - (Date.parse(at) % MINUTE)).toISOString(), value: 1050 }]);
  });

  it('keeps a value exactly as written, spaces and all', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const at = new Date().toISOString();
    for (const value of [' a b  c ', '', 'x'])
      expect((await api('POST', `/data/${device.id}/8`, { value, timestamp: at })).status).toBe(201);
    expect((await stack.history(device.id, 'V8')).map((p) => p.value)).toEqual([' a b  c ', '', 'x']);
  });

  it('stores a value PostgreSQL text cannot hold (NUL) with U+FFFD in its place, and the points after it', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    for (const value of ['a\u0000b', '2'])
      expect((await api('POST', `/data/${device.id}/6`, { value, timestamp: new Date().toISOString() })).status).toBe(201);
    expect((await stack.history(device.id, 'V6')).map((p) => p.value)).toEqual(['a\uFFFDb', '2']);
  });

  it('refuses a value with a lone UTF-16 surrogate (400, docs/limits.md "Pin values"), through bulk and single writes alike: nothing stored', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const at = Date.now();
    const readings = ['a\uD800b', 'c\uDC00', '3'].map((value, i) => ({ pin: 5, value, timestamp: new Date(at + i).toISOString() }));
    expect((await api('POST', `/data/${device.id}/bulk`, { readings })).status).toBe(400);
    expect((await api('POST', `/data/${device.id}/5`, { value: '\uD83Dx', timestamp: new Date(at + 3).toISOString() })).status).toBe(400);
    expect((await api('POST', `/data/${device.id}/5`, { value: '4', timestamp: new Date(at + 4).toISOString() })).status).toBe(201);
    expect((await stack.history(device.id, 'V5')).map((p) => p.value)).toEqual(['4']);
  });

  it('a range delete that cuts minutes leaves the rollups equal to the points left, and aggregates follow', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const start = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const readings = Array.from({ length: 300 }, (_, i) => ({
      pin: 9,
      value: String(i % 10),
      timestamp: new Date(start + i * 20_000 + 7).toISOString(),
    }));
    expect((await api('POST', `/data/${device.id}/bulk`, { readings })).status).toBe(200);
    // From the middle of minute 12 to the middle of minute 47.
    const from = new Date(start + 12 * MINUTE + 25_000);
    const to = new Date(start + 47 * MINUTE + 35_000);
    const del = await api('DELETE', `/data/${device.id}/9?${query({ from: from.toISOString(), to: to.toISOString() })}`);
    const gone = readings.filter((r) => Date.parse(r.timestamp) >= from.getTime() && Date.parse(r.timestamp) <= to.getTime());
    expect(del.body.data.deleted).toBe(gone.length);
    const left = readings.filter((r) => !gone.includes(r)).map((r) => ({ timestamp: r.timestamp, value: Number(r.value) }));
    const { rollups, points } = await rollupsAndPoints(device.id, 'V9');
    expect(rollups).toEqual(points);
    expect(rollups.reduce((n, r) => n + r.count, 0)).toBe(left.length);
    const window = { from: new Date(start).toISOString(), to: new Date(start + 3 * HOUR).toISOString() };
    for (const fn of FNS) {
      const res = await api('GET', `/data/${device.id}/9?${query({ ...window, aggregate: fn, interval: '5m' })}`);
      expectSame(res.body.data.points, byHand(left, fn, 5 * MINUTE, start, start + 3 * HOUR));
    }
  });

  it('device delete and project delete take the history of their devices with them', async () => {
    const otherProject = (await createProject(stack.request, owner)).id;
    const alone = await createDevice(stack.request, owner, projectId);
    const inProject = await createDevice(stack.request, owner, otherProject);
    for (const id of [alone.id, inProject.id])
      expect((await api('POST', `/data/${id}/1`, { value: '5', timestamp: new Date().toISOString() })).status).toBe(201);
    const stored = async (id: string): Promise<number> =>
      Number(
        (
          await pool.query(
            'SELECT (SELECT count(*) FROM points WHERE device_id = $1) + (SELECT count(*) FROM rollup_1m WHERE device_id = $1) AS n',
            [id],
          )
        ).rows[0]?.n,
      );
    await eventually(async () => expect(await stored(alone.id)).toBe(2));
    await eventually(async () => expect(await stored(inProject.id)).toBe(2));
    expect((await api('DELETE', `/devices/${alone.id}`)).status).toBe(204);
    expect(await stored(alone.id)).toBe(0);
    expect((await api('DELETE', `/projects/${otherProject}`)).status).toBe(204);
    expect(await stored(inProject.id)).toBe(0);
  });
});
