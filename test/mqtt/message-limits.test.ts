/**
 * MQTT limits (DESIGN §11): the broker refuses a packet over 64 KiB (the device is disconnected,
 * nothing reaches the service); a value over its pin's limit is dropped before it is decoded; a
 * retained message on a pin topic is cleared, so the broker keeps none there.
 */
import mqtt from 'mqtt';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { ownMosquitto, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';
import { keys } from '../../common/redis-keys';

let broker: RestartableServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  broker = await ownMosquitto();
  stack = await startStack({ overrides: broker.env });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await stopOwnServers();
});

const latest = async (deviceId: string, pin: number) =>
  stack.request('GET', `/api/v1/data/${deviceId}/${pin}/latest`, { token: owner.token });

test('a packet over 64 KiB disconnects the device and stores nothing; the next value is stored', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const topic = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/V1`;
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  client.publish(topic, 'x'.repeat(70 * 1024), { qos: 0 });
  await closed;
  await client.endAsync(true);
  const again = await connectAsDevice(stack.config.MQTT_URL, device);
  try {
    await again.publishAsync(topic, 'small', { qos: 1 });
    await eventually(async () => expect((await latest(device.id, 1)).body.data?.value).toBe('small'), 10_000, 100);
  } finally {
    await again.endAsync();
  }
});

test('a value over its pin limit is dropped, and a retained pin value is cleared at the broker', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const root = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}`;
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  try {
    await client.publishAsync(`${root}/pin/D1`, 'x'.repeat(17), { qos: 1 });
    await client.publishAsync(`${root}/pin/V2`, 'kept-retained', { qos: 1, retain: true });
    await eventually(async () => expect((await latest(device.id, 2)).body.data?.value).toBe('kept-retained'), 10_000, 100);
    expect(await stack.redis.hget(keys.devicePins(device.id), 'D1')).toBeNull();
    // A late subscriber to the pin topic gets no retained message once the service cleared it.
    await eventually(
      async () => {
        const watcher = await mqtt.connectAsync(stack.config.MQTT_URL, {
          username: stack.config.MQTT_USERNAME,
          password: stack.config.MQTT_PASSWORD,
          protocolVersion: 5,
          reconnectPeriod: 0,
        });
        const retained: string[] = [];
        watcher.on('message', (_t, payload, packet) => {
          if (packet.retain) retained.push(payload.toString());
        });
        await watcher.subscribeAsync(`${root}/pin/V2`, { qos: 1 });
        await sleep(300);
        await watcher.endAsync();
        expect(retained).toEqual([]);
      },
      10_000,
      200,
    );
    expect((await latest(device.id, 2)).body.data.value).toBe('kept-retained');
  } finally {
    await client.endAsync();
  }
});
