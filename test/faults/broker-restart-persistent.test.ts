/**
 * A broker that keeps its sessions on disk (as deployed: deploy/mosquitto/mosquitto.conf) restarted
 * under a gateway: the node's sessions come back with the broker, but Mosquitto 2.0 restores them
 * without their shared subscription, so a node that only subscribed again got no device value
 * (the cluster harness lost 329 of 514). Its subscriptions are renewed (gateway/mqtt/bridge.ts):
 * values sent after the restart are stored.
 */
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { ownMosquitto, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import type mqtt from 'mqtt';

let broker: RestartableServer;
let stack: Stack;
let owner: TestUser;
let client: mqtt.MqttClient | null = null;

beforeAll(async () => {
  broker = await ownMosquitto({ persistent: true });
  stack = await startStack({ overrides: broker.env });
  owner = await registerUser(stack.request);
}, 60_000);

afterAll(async () => {
  await client?.endAsync(true);
  await stack.stop();
  await stopOwnServers();
});

const latest = async (deviceId: string): Promise<string | null> => {
  const res = await stack.request('GET', `/api/v1/data/${deviceId}/1/latest`, { token: owner.token });
  return res.status === 200 ? (res.body.data.value as string) : null;
};

test('values a device sends after a restart of a persistent broker are stored', async () => {
  const projectId = (await createProject(stack.request, owner)).id;
  const device = await createDevice(stack.request, owner, projectId);
  client = await connectAsDevice(stack.config.MQTT_URL, device, { reconnectPeriod: 200 });
  const topic = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/V1`;
  await client.publishAsync(topic, 'before', { qos: 1 });
  await eventually(async () => expect(await latest(device.id)).toBe('before'), 20_000, 200);

  await broker.restart();
  // The gateway is ready again once its sessions are back and subscribed.
  await eventually(async () => expect((await stack.request('GET', '/readyz')).status).toBe(200), 30_000, 200);
  await eventually(async () => expect(client?.connected).toBe(true), 20_000, 100);
  await client.publishAsync(topic, 'after', { qos: 1 });
  await eventually(async () => expect(await latest(device.id)).toBe('after'), 20_000, 200);
}, 90_000);
