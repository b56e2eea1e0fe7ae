/**
 * The node's broker-queue lag (gateway/mqtt/queue-probe.ts) on servers of its own: Redis frozen
 * so the node stops storing, and a broker with a tiny per-client queue (max_queued_messages 10).
 * dds_mqtt_queue_lag_seconds rises while device values wait in the broker and falls back once
 * they are stored; when the broker drops values the node had not taken yet,
 * dds_mqtt_queue_drops_total counts it. Each session takes one value at a time here
 * (MQTT_INGEST_IN_FLIGHT 1), so a handful of values fills the node's window and the rest wait in
 * the broker, which is what the probe measures; with the default window it takes 20 per session.
 */
import type { MqttClient } from 'mqtt';
import { connectAsDevice, createDevice, createProject, registerUser } from '../helpers/fixtures';
import { ownMosquitto, ownRedis, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';

const LAG = 'dds_mqtt_queue_lag_seconds';
const DROPS = 'dds_mqtt_queue_drops_total';

let redis: RestartableServer;
let broker: RestartableServer;
let stack: Stack;
let device: { id: string; token: string };
let client: MqttClient;

beforeAll(async () => {
  redis = await ownRedis();
  broker = await ownMosquitto({ maxQueuedMessages: 10, redisUrl: redis.env.REDIS_URL });
  stack = await startStack({ overrides: { ...redis.env, ...broker.env, MQTT_INGEST_IN_FLIGHT: '1' } });
  const owner = await registerUser(stack.request);
  const projectId = (await createProject(stack.request, owner)).id;
  device = await createDevice(stack.request, owner, projectId);
  client = await connectAsDevice(stack.config.MQTT_URL, device);
}, 60_000);

afterAll(async () => {
  redis.thaw();
  await client?.endAsync();
  await stack.stop();
  await stopOwnServers();
});

const metric = async (name: string): Promise<number> => (await stack.metrics())[name] ?? NaN;
const stored = async (pin: string): Promise<number> => (await stack.history(device.id, pin)).length;

async function publish(pin: string, count: number): Promise<void> {
  const topic = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/${pin}`;
  await Promise.all(Array.from({ length: count }, (_, i) => client.publishAsync(topic, String(i), { qos: 1 })));
}

test('the lag rises while values wait in the broker and falls back once they are stored', async () => {
  // Probes go round once the sessions are subscribed: the lag is small.
  await eventually(async () => expect(await metric(LAG)).toBeLessThan(0.5));
  redis.freeze();
  try {
    await publish('V1', 6);
    await eventually(async () => expect(await metric(LAG)).toBeGreaterThan(2), 15_000);
  } finally {
    redis.thaw();
  }
  await eventually(async () => expect(await stored('V1')).toBe(6), 20_000);
  await eventually(async () => expect(await metric(LAG)).toBeLessThan(0.5), 15_000);
  expect(await metric(DROPS)).toBe(0);
}, 60_000);

test('values beyond the broker queue are lost after the broker acknowledged them, and the node counts the drops', async () => {
  const published = 300;
  redis.freeze();
  try {
    await publish('V2', published);
    // Probes sent while the sessions' queues are full are dropped with the values.
    await sleep(2500);
  } finally {
    redis.thaw();
  }
  await eventually(async () => expect(await metric(DROPS)).toBeGreaterThan(0), 20_000);
  await eventually(async () => expect(await metric(LAG)).toBeLessThan(0.5), 20_000);
  expect(await stored('V2')).toBeLessThan(published);
}, 60_000);
