/**
 * Each value stored once when a store step ran but its reply was lost (docs/architecture.md "Each
 * value stored once"): Redis is frozen (SIGSTOP) while a device's QoS 1 values are in flight, so
 * every step times out on the gateway and is tried again, its tries piling up in Redis's socket;
 * thawed, Redis runs them all. Once the gateway has handled every message, each value is in the
 * history once (the later tries counted as duplicates). Without the delivery check each try was
 * stored again.
 */
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { ownMosquitto, ownRedis, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import type mqtt from 'mqtt';

const VALUES = 10;

let redis: RestartableServer;
let stack: Stack;
let owner: TestUser;
let client: mqtt.MqttClient | null = null;

beforeAll(async () => {
  redis = await ownRedis();
  // A broker whose device plugin reads this file's Redis, where the stack keeps its devices.
  const broker = await ownMosquitto({ redisUrl: redis.env.REDIS_URL });
  stack = await startStack({ overrides: { ...redis.env, ...broker.env } });
  owner = await registerUser(stack.request);
}, 60_000);

afterAll(async () => {
  redis.thaw();
  await client?.endAsync(true);
  await stack.stop();
  await stopOwnServers();
});

const history = async (deviceId: string): Promise<string[]> => {
  const res = await stack.request('GET', `/api/v1/data/${deviceId}/1?limit=1000&from=${new Date(Date.now() - 600_000).toISOString()}`, {
    token: owner.token,
  });
  expect(res.status).toBe(200);
  return (res.body.data.points as Array<{ value: number }>).map((p) => String(p.value)).sort((a, b) => Number(a) - Number(b));
};

test('values whose store step timed out and was tried again while Redis was frozen are stored once each', async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const device = await createDevice(stack.request, owner, projectId);
  client = await connectAsDevice(stack.config.MQTT_URL, device);
  const topic = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/V1`;
  await client.publishAsync(topic, '0', { qos: 1 });
  await eventually(async () => expect(await history(device.id)).toEqual(['0']), 20_000, 200);

  redis.freeze();
  const acknowledged = Array.from({ length: VALUES }, (_, i) => client!.publishAsync(topic, String(i + 1), { qos: 1 }));
  // Stalled: the steps timed out (REDIS_COMMAND_TIMEOUT_MS) and their retries are queued behind them in Redis's socket.
  await eventually(
    async () => {
      const ready = await stack.request('GET', '/readyz');
      expect(ready.body.error?.details).toEqual(expect.arrayContaining([{ field: 'ingest', problem: expect.stringMatching(/^stalled/) }]));
    },
    20_000,
    200,
  );
  await eventually(async () => expect((await stack.metrics()).dds_mqtt_retries_total).toBeGreaterThanOrEqual(VALUES), 20_000, 200);
  redis.thaw();

  await Promise.all(acknowledged);
  // Every try is done once the gateway has handled each message (the broker's PUBACK to the device came long before).
  await eventually(
    async () => {
      const metrics = await stack.metrics();
      expect(metrics).toMatchObject({ dds_mqtt_messages_total: VALUES + 1, dds_mqtt_in_flight: 0 });
      expect(metrics.dds_mqtt_duplicates_total).toBeGreaterThanOrEqual(1);
    },
    20_000,
    200,
  );
  const expected = ['0', ...Array.from({ length: VALUES }, (_, i) => String(i + 1))];
  await eventually(async () => expect((await history(device.id)).length).toBeGreaterThanOrEqual(expected.length), 20_000, 200);
  expect(await history(device.id)).toEqual(expected);
}, 90_000);
