import { connectAsync, type IDisconnectPacket, type MqttClient } from 'mqtt';
import { createMqttClient, mqttConnected } from '../../common/mqtt';
import { createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

// The stack's devices log in through the broker's device plugin (MQTT_DEVICE_AUTH=plugin, the
// default): deploy/mosquitto-plugin/dds_device_auth.c reading the stack's Redis.
const NOT_AUTHORIZED = 135;
const ADMINISTRATIVE_ACTION = 152;

let stack: Stack;
let owner: TestUser;
let projectId: string;
let service: MqttClient;
const received: string[] = [];
const opened: MqttClient[] = [];

const topic = (deviceId: string, rest: string) => `${stack.config.MQTT_TOPIC_ROOT}/${deviceId}/${rest}`;

async function connectDevice(username: string, password: string): Promise<MqttClient> {
  const options = { protocolVersion: 5 as const, username, password, reconnectPeriod: 0, connectTimeout: 3000 };
  const client = await connectAsync(stack.config.MQTT_URL, options, false);
  opened.push(client);
  return client;
}

const refusal = (username: string, password: string): Promise<unknown> =>
  connectDevice(username, password).then(
    () => 'connected',
    (err: { code?: unknown }) => err.code,
  );

function dropped(client: MqttClient): Promise<number | undefined> {
  return new Promise((resolve) => {
    let reason: number | undefined;
    client.once('disconnect', (packet: IDisconnectPacket) => {
      reason = packet.reasonCode;
    });
    client.once('close', () => resolve(reason));
  });
}

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
  service = createMqttClient(stack.config, 'device-plugin-test');
  await mqttConnected(service);
  service.on('message', (t, payload) => received.push(`${t}=${payload.toString('utf8')}`));
  await service.subscribeAsync(`${stack.config.MQTT_TOPIC_ROOT}/#`, { qos: 1 });
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.endAsync(true)));
});

afterAll(async () => {
  await service.endAsync();
  await stack.stop();
});

describe('devices at the broker through the device plugin', () => {
  it('lets a device log in with its token as soon as its create answered, and refuses a wrong one', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const client = await connectDevice(device.id, device.token);
    await client.publishAsync(topic(device.id, 'pin/V1'), '21.5', { qos: 1 });
    await eventually(() => expect(received).toContain(`${topic(device.id, 'pin/V1')}=21.5`));

    expect(await refusal(device.id, `${device.token}x`)).toBe(NOT_AUTHORIZED);
    expect(await refusal('00000000-0000-4000-8000-000000000000', device.token)).toBe(NOT_AUTHORIZED);
  });

  it("confines a device to its own topics, OTA included, and not another device's", async () => {
    const [device, other] = [await createDevice(stack.request, owner, projectId), await createDevice(stack.request, owner, projectId)];
    const client = await connectDevice(device.id, device.token);
    const got: string[] = [];
    client.on('message', (t, payload) => got.push(`${t}=${payload.toString('utf8')}`));

    await client.subscribeAsync([topic(device.id, 'pin/+/set'), topic(device.id, 'ota')], { qos: 1 });
    for (const refused of [topic(other.id, 'ota'), topic(other.id, 'pin/+/set'), `${stack.config.MQTT_TOPIC_ROOT}/#`]) {
      await expect(client.subscribeAsync(refused, { qos: 1 })).rejects.toMatchObject({ packet: { granted: [NOT_AUTHORIZED] } });
    }
    for (const refused of [topic(other.id, 'pin/V1'), topic(device.id, 'pin/V1/set'), topic(device.id, 'ota'), topic(device.id, 'x')]) {
      await expect(client.publishAsync(refused, 'spoofed', { qos: 1 })).rejects.toMatchObject({ code: NOT_AUTHORIZED });
    }
    await service.publishAsync(topic(other.id, 'ota'), 'not yours', { qos: 1 });
    await service.publishAsync(topic(device.id, 'pin/V2/set'), '1', { qos: 1 });
    await service.publishAsync(topic(device.id, 'ota'), '{"jobId":"j1"}', { qos: 1 });
    await eventually(() => expect(got).toEqual([`${topic(device.id, 'pin/V2/set')}=1`, `${topic(device.id, 'ota')}={"jobId":"j1"}`]));

    await client.publishAsync(topic(device.id, 'ota/status'), '{"jobId":"j1","state":"done"}', { qos: 1 });
    await eventually(() => expect(received).toContain(`${topic(device.id, 'ota/status')}={"jobId":"j1","state":"done"}`));
    expect(received.filter((m) => m.endsWith('=spoofed'))).toEqual([]);
  });

  it('drops the session and refuses the old token once the token is regenerated', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const client = await connectDevice(device.id, device.token);
    const gone = dropped(client);

    const res = await stack.request('POST', `/api/v1/devices/${device.id}/regenerate-token`, { token: owner.token });
    expect(res.status).toBe(200);

    expect(await gone).toBe(ADMINISTRATIVE_ACTION);
    expect(await refusal(device.id, device.token)).toBe(NOT_AUTHORIZED);
    const again = await connectDevice(device.id, res.body.data.token);
    await again.publishAsync(topic(device.id, 'pin/V1'), 'after', { qos: 1 });
    await eventually(() => expect(received).toContain(`${topic(device.id, 'pin/V1')}=after`));
  });

  it('drops the session and refuses the device once it is deleted', async () => {
    const device = await createDevice(stack.request, owner, projectId);
    const client = await connectDevice(device.id, device.token);
    const gone = dropped(client);

    expect((await stack.request('DELETE', `/api/v1/devices/${device.id}`, { token: owner.token })).status).toBe(204);

    expect(await gone).toBe(ADMINISTRATIVE_ACTION);
    expect(await refusal(device.id, device.token)).toBe(NOT_AUTHORIZED);
  });
});
