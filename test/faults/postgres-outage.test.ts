/**
 * PostgreSQL stopped under a gateway of its own: writes keep being accepted into the history
 * stream up to its bound, then answer 503 naming postgres; history reads answer 503 naming
 * postgres; once PostgreSQL is back every accepted point is persisted, rollups included, with no
 * restart of the gateway.
 */
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import type { HttpResult } from '../helpers/http';
import { ownPostgres, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually } from '../helpers/wait';

const STREAM_MAX = 30;
/** The read waits up to 3 s for the stream to drain before it gives up. */
const READ_ANSWER_WITHIN_MS = 5_000;

let postgres: RestartableServer;
let stack: Stack;
let owner: TestUser;
let deviceId: string;

beforeAll(async () => {
  postgres = await ownPostgres();
  stack = await startStack({ overrides: { ...postgres.env, HISTORY_STREAM_MAX: String(STREAM_MAX) } });
  owner = await registerUser(stack.request);
  const projectId = (await createProject(stack.request, owner)).id;
  deviceId = (await createDevice(stack.request, owner, projectId)).id;
}, 90_000);

afterAll(async () => {
  await stack.stop();
  await stopOwnServers();
});

const api = (method: string, path: string, body?: unknown): Promise<HttpResult> =>
  stack.request(method, `/api/v1${path}`, { token: owner.token, body });
const write = (value: number): Promise<HttpResult> =>
  api('POST', `/data/${deviceId}/2`, { value: String(value), timestamp: new Date(Date.now() - 1000 + value).toISOString() });

function expectPostgres503(res: HttpResult): void {
  expect(res.status).toBe(503);
  expect(res.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: [{ field: 'dependency', problem: 'postgres' }] });
}

it('takes writes into the stream while PostgreSQL is down, up to the bound; reads 503; every point lands after it returns', async () => {
  expect((await write(0)).status).toBe(201);
  expect((await api('GET', `/data/${deviceId}/2`)).body.data.points).toHaveLength(1);

  await postgres.stop();
  const accepted = [0];
  for (let value = 1; value <= STREAM_MAX; value += 1) {
    const res = await write(value);
    expect(res.status).toBe(201);
    accepted.push(value);
  }
  expectPostgres503(await write(STREAM_MAX + 1));
  // The lag shows: every accepted point since the stop is waiting, the oldest for a while.
  await eventually(async () => {
    const metrics = await stack.metrics();
    expect(metrics.dds_history_backlog).toBe(STREAM_MAX);
    expect(metrics.dds_history_lag_seconds).toBeGreaterThan(0);
  });
  expectPostgres503(await answerWithin(READ_ANSWER_WITHIN_MS, 'raw read', api('GET', `/data/${deviceId}/2`)));
  expectPostgres503(
    await answerWithin(READ_ANSWER_WITHIN_MS, 'aggregate read', api('GET', `/data/${deviceId}/2?aggregate=sum&interval=1h`)),
  );
  // The latest value is Redis's: it still answers, and it is the last accepted write.
  expect((await api('GET', `/data/${deviceId}/2/latest`)).body.data.value).toBe(String(STREAM_MAX));

  await postgres.restart();
  const points = await eventually(
    async () => {
      const res = await api('GET', `/data/${deviceId}/2?limit=1000`);
      expect(res.status).toBe(200);
      return res.body.data.points as { value: number }[];
    },
    30_000,
    250,
  );
  expect(points.map((p) => p.value)).toEqual(accepted);
  const sum = await api('GET', `/data/${deviceId}/2?aggregate=sum&interval=1d`);
  expect(sum.body.data.points.reduce((n: number, p: { value: number }) => n + p.value, 0)).toBe(accepted.reduce((a, b) => a + b, 0));
  expect((await write(STREAM_MAX + 2)).status).toBe(201);
  await eventually(async () => expect((await stack.metrics()).dds_history_backlog).toBe(0));
}, 90_000);

it('counts a bulk import in readings against the bound, for single writes too; all land after PostgreSQL returns', async () => {
  const start = Date.now() - 60_000;
  const bulk = (from: number, count: number): Promise<HttpResult> =>
    api('POST', `/data/${deviceId}/bulk`, {
      readings: Array.from({ length: count }, (_, i) => ({
        pin: 3,
        value: String(from + i),
        timestamp: new Date(start + (from + i) * 10).toISOString(),
      })),
    });
  await postgres.stop();
  const bulkSize = STREAM_MAX - 10;
  expect((await bulk(0, bulkSize)).status).toBe(200);
  // One stream entry holds those readings, yet they fill the stream as many points: 11 more do not fit.
  expectPostgres503(await bulk(bulkSize, 11));
  const single = (value: number): Promise<HttpResult> =>
    api('POST', `/data/${deviceId}/3`, { value: String(value), timestamp: new Date(start + value * 10).toISOString() });
  for (let value = bulkSize; value < STREAM_MAX; value += 1) expect((await single(value)).status).toBe(201);
  expectPostgres503(await single(STREAM_MAX));
  await eventually(async () => expect((await stack.metrics()).dds_history_backlog).toBe(STREAM_MAX));

  await postgres.restart();
  const points = await eventually(
    async () => {
      const res = await api('GET', `/data/${deviceId}/3?limit=1000`);
      expect(res.status).toBe(200);
      return res.body.data.points as { value: number }[];
    },
    30_000,
    250,
  );
  expect(points.map((p) => p.value)).toEqual(Array.from({ length: STREAM_MAX }, (_, i) => i));
  await eventually(async () => expect((await stack.metrics()).dds_history_backlog).toBe(0));
  // The bound is free again, for a bulk as large as it.
  expect((await bulk(STREAM_MAX, STREAM_MAX)).status).toBe(200);
}, 90_000);
