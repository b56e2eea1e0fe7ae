/**
 * A WebSocket client's frames and an MQTT connection's packets of one event-loop iteration leave
 * in one socket write (common/cork.ts), as a Redis connection's commands do
 * (test/store/one-write-per-iteration.test.ts): counted at the socket's handle, against a real
 * gateway, Redis and broker.
 */
import type { Socket } from 'node:net';
import { createRoomEmitter } from '../../activities/socket-events';
import { rooms, type PinUpdateEvent } from '../../common/contracts';
import { createMqttClient, mqttConnected, type MqttClient } from '../../common/mqtt';
import { createDevice, createProject, registerUser } from '../helpers/fixtures';
import { collect, subscribedSocket, type ClientSocket } from '../helpers/socket';
import { countSocketWrites } from '../helpers/socket-writes';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

let stack: Stack;
let client: ClientSocket | undefined;
let mqtt: MqttClient | undefined;

beforeAll(async () => {
  stack = await startStack();
}, 60_000);

afterAll(async () => {
  client?.close();
  await mqtt?.endAsync();
  await stack.stop();
});

test('a burst of events to a WebSocket client leaves in a couple of writes, not one per event, in order', async () => {
  const owner = await registerUser(stack.request);
  const projectId = (await createProject(stack.request, owner)).id;
  const device = await createDevice(stack.request, owner, projectId);
  let serverSide: Socket | undefined;
  stack.composed.gateway.server.once('upgrade', (_req, socket: Socket) => (serverSide = socket));
  client = await subscribedSocket(stack.baseUrl, owner.token, { deviceId: device.id });
  const writes = countSocketWrites(serverSide as Socket);
  const received = collect(client, 'pin:update');

  const emit = createRoomEmitter(stack.redis);
  const sent: PinUpdateEvent[] = Array.from({ length: 20 }, (_, i) => ({
    deviceId: device.id,
    pin: 'V1',
    value: String(i),
    updatedAt: new Date().toISOString(),
    seq: i + 1,
  }));
  await Promise.all(sent.map((event) => emit([rooms.device(device.id)], 'pin:update', event)));

  await eventually(() => expect(received.map((e) => e.value)).toEqual(sent.map((e) => e.value)));
  // The first frame, then the rest together once it is written (engine.io sends one batch at a time); one write per event without the cork.
  expect(writes()).toBeLessThanOrEqual(3);
});

test("an MQTT connection's packets of one iteration leave in one write", async () => {
  mqtt = createMqttClient(stack.config, 'test-one-write');
  await mqttConnected(mqtt);
  const writes = countSocketWrites(mqtt.stream as unknown as Socket);
  const topic = `${stack.config.MQTT_TOPIC_ROOT}/test-one-write/${Date.now()}`;
  await new Promise<void>((resolve) => {
    // Two timers due together: two callbacks of one timers phase, each publishing.
    setTimeout(() => void mqtt?.publish(topic, 'a'), 1);
    setTimeout(() => {
      mqtt?.publish(topic, 'b');
      setImmediate(resolve);
    }, 1);
  });
  expect(writes()).toBe(1);
});
