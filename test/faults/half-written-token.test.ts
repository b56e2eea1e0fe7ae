/**
 * regenerate-token while Redis or the broker fails, under a gateway of its own: at every failure
 * the device can log in to the broker with the token the answer implies — the old one after a
 * 503, the new one after a 2xx — never with neither.
 */
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import type { HttpResult } from '../helpers/http';
import { ownMosquitto, ownRedis, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

let redis: RestartableServer;
let broker: RestartableServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  redis = await ownRedis();
  broker = await ownMosquitto({ redisUrl: redis.env.REDIS_URL });
  stack = await startStack({ overrides: { ...redis.env, ...broker.env } });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  broker.thaw();
  await stack.stop();
  await stopOwnServers();
});

const regenerate = (deviceId: string): Promise<HttpResult> =>
  answerWithin(
    2500,
    'POST regenerate-token',
    stack.request('POST', `/api/v1/devices/${deviceId}/regenerate-token`, { token: owner.token }),
  );

async function logsIn(device: { id: string; token: string }): Promise<boolean> {
  try {
    await (await connectAsDevice(stack.config.MQTT_URL, device, { connectTimeout: 2000 })).endAsync();
    return true;
  } catch {
    return false;
  }
}

const maskedToken = async (deviceId: string): Promise<string> =>
  (await stack.request('GET', `/api/v1/devices/${deviceId}`, { token: owner.token })).body.data.token;

const masked = (token: string): string => `dt_…${token.slice(-4)}`;

async function brokerServing(): Promise<void> {
  await eventually(async () => expect((await stack.request('GET', '/readyz')).status).toBe(200), 15_000);
}

test('Redis takes no writes: 503 (redis), and the old token still logs in once Redis is back', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  expect(await logsIn(device)).toBe(true);
  await stack.redis.client('PAUSE', 5000, 'WRITE');
  let res: HttpResult;
  try {
    res = await regenerate(device.id);
  } finally {
    await stack.redis.client('UNPAUSE');
  }
  expect(res.status).toBe(503);
  expect(res.body.error.details).toEqual([{ field: 'dependency', problem: 'redis' }]);
  expect(await logsIn(device)).toBe(true);
  expect(await maskedToken(device.id)).toBe(masked(device.token));
}, 30_000);

test('broker frozen: 202 with the new token, which logs in once the broker wakes, and the old one then does not', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  broker.freeze();
  let res: HttpResult;
  try {
    res = await regenerate(device.id);
  } finally {
    broker.thaw();
  }
  expect(res.status).toBe(202);
  const token: string = res.body.data.token;
  expect(token).toMatch(/^dt_/);
  await brokerServing();
  await eventually(async () => expect(await logsIn({ id: device.id, token })).toBe(true), 15_000, 250);
  expect(await logsIn(device)).toBe(false);
  await eventually(async () => expect(await maskedToken(device.id)).toBe(masked(token)), 15_000, 250);
}, 60_000);

test('broker stopped: 503 (mqtt) at once, and the old token still logs in once the broker is back', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await broker.stop();
  await eventually(async () => expect((await stack.request('GET', '/readyz')).status).toBe(503), 5000);
  const res = await regenerate(device.id);
  await broker.restart();
  expect(res.status).toBe(503);
  expect(res.body.error.details).toEqual([{ field: 'dependency', problem: 'mqtt' }]);
  await brokerServing();
  expect(await logsIn(device)).toBe(true);
  expect(await maskedToken(device.id)).toBe(masked(device.token));
  expect(await stack.redis.hget(keys.device(device.id), 'stagedTokenHash')).toBeNull();
}, 60_000);
