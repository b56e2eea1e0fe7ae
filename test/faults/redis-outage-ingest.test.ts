/**
 * Redis stopped for 60 s while 20 devices publish QoS 1 values, then started again: the gateway
 * keeps retrying the values it holds (never leaving one unacknowledged while its broker
 * connection is up), `/readyz` says `ingest: stalled` meanwhile, values are stored again within
 * 10 s of Redis's return, and every value the broker acknowledged to a device is stored.
 */
import { setPlan } from '../external/fixtures';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { ownMosquitto, ownRedis, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { missingAfterDrain, notYetStored, publishCounting } from '../helpers/stored-values';
import { eventually, sleep } from '../helpers/wait';
import type mqtt from 'mqtt';
import { keys } from '../../common/redis-keys';

const DEVICES = 20;
const OUTAGE_MS = 60_000;
/** How long the count of values not yet stored may stand still before the test calls them lost. */
const STALL_MS = 20_000;

let redis: RestartableServer;
let stack: Stack;
let owner: TestUser;
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  redis = await ownRedis();
  // A broker whose device plugin reads this file's Redis, where the stack keeps its devices.
  const broker = await ownMosquitto({ redisUrl: redis.env.REDIS_URL });
  stack = await startStack({ overrides: { ...redis.env, ...broker.env } });
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'pro');
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await stack.stop();
  await stopOwnServers();
});

test('every QoS 1 value the broker acknowledged during a 60 s Redis outage is stored, and ingest resumes within 10 s', async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const devices = await Promise.all(Array.from({ length: DEVICES }, (_, i) => createDevice(stack.request, owner, projectId, `meter-${i}`)));
  for (const d of devices) clients.push(await connectAsDevice(stack.config.MQTT_URL, d));

  // Each device publishes 1, 2, 3, ... on V1 (publishCounting), 5 a second at QoS 1; a value counts once the broker acknowledged it.
  const publishing = publishCounting(clients, devices, stack.config.MQTT_TOPIC_ROOT, 200);
  const { acknowledged, total } = publishing;
  await eventually(() => expect(total()).toBeGreaterThan(200), 20_000);

  await redis.stop();
  const stoppedAt = Date.now();
  await eventually(
    async () => {
      const ready = await stack.request('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.error.details).toEqual(expect.arrayContaining([{ field: 'ingest', problem: expect.stringMatching(/^stalled/) }]));
    },
    10_000,
    200,
  );
  await sleep(Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt)));
  const atStop = total();
  await redis.restart();
  const restartedAt = Date.now();

  // Values are stored again: a device's latest value is one stored after Redis came back (read on
  // the test's own connection, which waits longer than the API's 1 s deadline on a loaded machine).
  await eventually(
    async () => {
      const latest = JSON.parse((await stack.redis.hget(keys.devicePins(devices[0]!.id), 'V1')) ?? '{}') as { updatedAt?: string };
      expect(Date.parse(latest.updatedAt ?? '')).toBeGreaterThanOrEqual(restartedAt);
    },
    10_000,
    100,
  );
  const resumedMs = Date.now() - restartedAt;
  expect(resumedMs).toBeLessThan(10_000);
  await eventually(() => expect(total()).toBeGreaterThan(atStop + 100), 20_000);
  await publishing.stop();

  const missing = await missingAfterDrain(() => notYetStored(stack.request, owner, devices, acknowledged), STALL_MS);
  expect(missing).toEqual([]);
  expect((await stack.request('GET', '/readyz')).status).toBe(200);
  console.log(
    `redis outage: ${total()} values acknowledged to ${DEVICES} devices (${atStop} by the end of the outage), all stored; ingest resumed ${resumedMs} ms after Redis`,
  );
}, 300_000);
