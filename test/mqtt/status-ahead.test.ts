/**
 * Reconnect storms (issue 14 item 2, docs/architecture.md "Reconnect storms"): a device coming
 * online is shown online by the gateway before its twin has run (mirror and `device:status`), and
 * the twin confirms it after, without a second event. The stack starts without a twin worker, so
 * what the test sees before the worker starts can only be the gateway's write ahead.
 */
import { Client, Connection } from '@temporalio/client';
import type mqtt from 'mqtt';
import type { DeviceStatusEvent } from '../../common/contracts';
import { twinWorkflowId } from '../../common/contracts';
import { keys } from '../../common/redis-keys';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { collect, subscribedSocket, type ClientSocket } from '../helpers/socket';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

let stack: Stack;
let owner: TestUser;
let projectId: string;
let socket: ClientSocket;
let statuses: DeviceStatusEvent[];
const clients: mqtt.MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack({ worker: false });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
  socket = await subscribedSocket(stack.baseUrl, owner.token, { projectId });
  statuses = collect(socket, 'device:status');
}, 60_000);

afterAll(async () => {
  socket.close();
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  await stack.stop();
});

async function deviceStatus(deviceId: string): Promise<string> {
  const res = await stack.request('GET', `/api/v1/devices/${deviceId}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body.data.status;
}

test('a status `online` and a first value show devices online before their twins run; the twins confirm after with no second event', async () => {
  const root = stack.config.MQTT_TOPIC_ROOT;
  const byStatus = await createDevice(stack.request, owner, projectId, 'status device');
  const byValue = await createDevice(stack.request, owner, projectId, 'value device');
  for (const device of [byStatus, byValue]) clients.push(await connectAsDevice(stack.config.MQTT_URL, device));
  const [statusClient, valueClient] = clients as [mqtt.MqttClient, mqtt.MqttClient];

  await statusClient.publishAsync(`${root}/${byStatus.id}/status`, 'online', { qos: 1 });
  await valueClient.publishAsync(`${root}/${byValue.id}/pin/V1`, '21.5', { qos: 1 });

  for (const device of [byStatus, byValue]) {
    await eventually(async () => expect(await deviceStatus(device.id)).toBe('online'));
    await eventually(() =>
      expect(statuses.filter((e) => e.deviceId === device.id)).toEqual([expect.objectContaining({ status: 'online', reason: null })]),
    );
    expect(await stack.redis.hget(keys.deviceState(device.id), 'statusAhead')).toBe('1'); // no twin has run yet
  }

  await stack.restartWorker(); // the first twin worker of this stack
  const connection = await Connection.connect({ address: stack.config.TEMPORAL_ADDRESS as string });
  const client = new Client({ connection, namespace: stack.config.TEMPORAL_NAMESPACE });
  for (const device of [byStatus, byValue]) {
    await eventually(async () => expect(await stack.redis.hget(keys.deviceState(device.id), 'statusAhead')).toBeNull(), 30_000);
    const state = await client.workflow.getHandle(twinWorkflowId(device.id)).query<{ status: string }>('state');
    expect(state.status).toBe('online');
    expect(await deviceStatus(device.id)).toBe('online');
  }
  await connection.close();
  // The twin's confirmation found the mirror right: no second `device:status`.
  expect(statuses.filter((e) => e.deviceId === byStatus.id || e.deviceId === byValue.id)).toHaveLength(2);

  // A repeated `online` from a device shown online is activity: lastSeen moves, no second event.
  const seenBefore = await stack.redis.hget(keys.deviceState(byStatus.id), 'lastSeen');
  await statusClient.publishAsync(`${root}/${byStatus.id}/status`, 'online', { qos: 1 });
  await eventually(async () =>
    expect((await stack.redis.hget(keys.deviceState(byStatus.id), 'lastSeen')) ?? '').not.toBe(seenBefore ?? ''),
  );
  expect(statuses.filter((e) => e.deviceId === byStatus.id)).toHaveLength(1);
}, 90_000);
