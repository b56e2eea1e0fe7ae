/**
 * The broker's device plugin (deploy/mosquitto-plugin/dds_device_auth.c) keeps what devices
 * publish until a service client has subscribed to their pin topics since the broker started, then
 * publishes it again in order: after a restart (Mosquitto 2.0 restores the gateways' sessions
 * without their shared subscriptions) a device that reconnects before any gateway has subscribed
 * again loses no acknowledged value. On a private persistent broker whose plugin reads the run's
 * Redis; the device is a store record, so no gateway subscribes before the test does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import { hashSecret } from '../../common/credentials';
import { keys } from '../../common/redis-keys';
import { connectAsDevice } from '../helpers/fixtures';
import { ownMosquitto, type RestartableServer, stopOwnServers } from '../helpers/own-servers';
import { fileRedis } from '../helpers/store-device';
import { eventually } from '../helpers/wait';

const redis = fileRedis('held-until-service');
let broker: RestartableServer;
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  broker = await ownMosquitto({ persistent: true });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true)));
  await stopOwnServers();
});

async function storedDevice(): Promise<{ id: string; token: string }> {
  const device = { id: randomUUID(), token: `dt_${randomBytes(16).toString('hex')}` };
  await redis().hset(keys.device(device.id), { projectId: randomUUID(), tokenHash: hashSecret(device.token) });
  return device;
}

/** A service client (the gateways' account) subscribed the way a gateway is; the values it gets on `topic`. */
async function subscribedService(topic: string): Promise<string[]> {
  const service = await mqtt.connectAsync(broker.env.MQTT_URL as string, {
    username: broker.env.MQTT_USERNAME,
    password: broker.env.MQTT_PASSWORD,
    protocolVersion: 5,
    reconnectPeriod: 0,
  });
  clients.push(service);
  const got: string[] = [];
  service.on('message', (t, payload) => {
    if (t === topic) got.push(payload.toString());
  });
  await service.subscribeAsync('$share/held/+/+/pin/+', { qos: 1 });
  return got;
}

async function publishAll(client: mqtt.MqttClient, topic: string, values: string[]): Promise<void> {
  for (const value of values) await client.publishAsync(topic, value, { qos: 1 });
}

test('values acknowledged before any service client subscribed reach the first one, in order, after each broker start', async () => {
  const device = await storedDevice();
  const topic = `held/${device.id}/pin/V1`;
  const early = await connectAsDevice(broker.env.MQTT_URL as string, device);
  clients.push(early);
  await publishAll(early, topic, ['1', '2', '3']);
  const got = await subscribedService(topic);
  await eventually(() => expect(got).toEqual(['1', '2', '3']));
  await publishAll(early, topic, ['4']);
  await eventually(() => expect(got).toEqual(['1', '2', '3', '4']));
  await early.endAsync(true);

  await broker.restart();
  const again = await connectAsDevice(broker.env.MQTT_URL as string, device);
  clients.push(again);
  await publishAll(again, topic, ['5', '6']);
  const afterRestart = await subscribedService(topic);
  await eventually(() => expect(afterRestart).toEqual(['5', '6']));
}, 90_000);
