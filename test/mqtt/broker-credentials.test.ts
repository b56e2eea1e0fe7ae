import { randomBytes, randomUUID } from 'node:crypto';
import { connectAsync, type IDisconnectPacket, type MqttClient } from 'mqtt';
import type { Config } from '../../common/config';
import { createLogger } from '../../common/logger';
import { createMqttClient, mqttConnected } from '../../common/mqtt';
import {
  type BrokerCredentials,
  brokerCredentialsFromConfig,
  createBrokerCredentials,
  disabledBrokerCredentials,
} from '../../gateway/mqtt/broker-credentials';
import { connectDynsecClient, DynsecCommandError, DynsecUnavailableError, throwOnError } from '../../gateway/mqtt/dynsec-client';
import { testConfig } from '../harness/config';

const NOT_AUTHORIZED = 135;
const ADMINISTRATIVE_ACTION = 152;

const logger = createLogger('silent', 'broker-credentials-test');
const root = `creds-${randomBytes(4).toString('hex')}`;
const config: Config = testConfig({ MQTT_TOPIC_ROOT: root });
const dynsecAdmin = {
  url: config.MQTT_URL,
  username: config.MQTT_DYNSEC_USERNAME ?? '',
  password: config.MQTT_DYNSEC_PASSWORD ?? '',
};

let credentials: BrokerCredentials;
let service: MqttClient;
const received: Array<{ topic: string; payload: string }> = [];
const opened: MqttClient[] = [];

const newDevice = () => ({ id: randomUUID(), token: `dt_${randomBytes(16).toString('hex')}` });

async function connectDevice(username: string, password: string): Promise<MqttClient> {
  const client = await connectAsync(
    config.MQTT_URL,
    { protocolVersion: 5, username, password, reconnectPeriod: 0, connectTimeout: 2000 },
    false,
  );
  opened.push(client);
  return client;
}

async function refusal(username: string, password: string): Promise<unknown> {
  return connectDevice(username, password).then(
    () => 'connected',
    (err: { code?: unknown }) => err.code,
  );
}

async function until<T>(probe: () => T | undefined, what: string, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const serviceGot = (topic: string, payload: string) =>
  until(() => received.find((m) => m.topic === topic && m.payload === payload), `${topic} = ${payload} at the service`);

/** Resolves with the broker's DISCONNECT reason once `client`'s connection is closed. */
function dropped(client: MqttClient): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let reason: number | undefined;
    const timer = setTimeout(() => reject(new Error('the session was not dropped')), 3000);
    client.once('disconnect', (packet: IDisconnectPacket) => {
      reason = packet.reasonCode;
    });
    client.once('close', () => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

beforeAll(async () => {
  credentials = await createBrokerCredentials({ ...dynsecAdmin, topicRoot: root, logger });
  service = createMqttClient(config, 'creds-test');
  await mqttConnected(service);
  service.on('message', (topic, payload) => received.push({ topic, payload: payload.toString('utf8') }));
  await service.subscribeAsync(`${root}/#`, { qos: 1 });
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.endAsync(true)));
});

afterAll(async () => {
  await credentials.close();
  await service.endAsync();
});

describe('broker credentials in the dynamic security plugin', () => {
  it('lets a provisioned device publish its pins, status and info', async () => {
    const device = newDevice();
    await credentials.provision(device.id, device.token);
    const client = await connectDevice(device.id, device.token);

    await client.publishAsync(`${root}/${device.id}/pin/V1`, '42', { qos: 1 });
    await client.publishAsync(`${root}/${device.id}/status`, 'online', { qos: 1 });
    await client.publishAsync(`${root}/${device.id}/info`, '{"firmwareVersion":"1.0"}', { qos: 1 });

    await serviceGot(`${root}/${device.id}/pin/V1`, '42');
    await serviceGot(`${root}/${device.id}/status`, 'online');
    await serviceGot(`${root}/${device.id}/info`, '{"firmwareVersion":"1.0"}');
  });

  it("refuses a publish under another device's id or onto a command topic", async () => {
    const [device, other] = [newDevice(), newDevice()];
    await credentials.provision(device.id, device.token);
    await credentials.provision(other.id, other.token);
    const client = await connectDevice(device.id, device.token);

    for (const topic of [`${root}/${other.id}/pin/V1`, `${root}/${device.id}/pin/V1/set`, `${root}/${device.id}/x`]) {
      await expect(client.publishAsync(topic, 'spoofed', { qos: 1 })).rejects.toMatchObject({ code: NOT_AUTHORIZED });
    }
    await client.publishAsync(`${root}/${device.id}/pin/V2`, 'marker', { qos: 1 });

    await serviceGot(`${root}/${device.id}/pin/V2`, 'marker');
    expect(received.filter((m) => m.payload === 'spoofed')).toEqual([]);
  });

  it('lets a device subscribe to its own command topics only', async () => {
    const [device, other] = [newDevice(), newDevice()];
    await credentials.provision(device.id, device.token);
    await credentials.provision(other.id, other.token);
    const client = await connectDevice(device.id, device.token);
    const commands: string[] = [];
    client.on('message', (topic, payload) => commands.push(`${topic}=${payload.toString('utf8')}`));

    await client.subscribeAsync(`${root}/${device.id}/pin/+/set`, { qos: 1 });
    await expect(client.subscribeAsync(`${root}/${other.id}/pin/+/set`, { qos: 1 })).rejects.toMatchObject({
      packet: { granted: [NOT_AUTHORIZED] },
    });
    await expect(client.subscribeAsync(`${root}/#`, { qos: 1 })).rejects.toMatchObject({
      packet: { granted: [NOT_AUTHORIZED] },
    });

    await service.publishAsync(`${root}/${other.id}/pin/V3/set`, 'not yours', { qos: 1 });
    await service.publishAsync(`${root}/${device.id}/pin/V3/set`, '1', { qos: 1 });

    await until(() => (commands.length > 0 ? commands : undefined), 'a command at the device');
    expect(commands).toEqual([`${root}/${device.id}/pin/V3/set=1`]);
  });

  it("lets a device take its own OTA updates and report on them, not another device's (DESIGN §13)", async () => {
    const [device, other] = [newDevice(), newDevice()];
    await credentials.provision(device.id, device.token);
    await credentials.provision(other.id, other.token);
    const client = await connectDevice(device.id, device.token);
    const updates: string[] = [];
    client.on('message', (topic, payload) => updates.push(`${topic}=${payload.toString('utf8')}`));

    await client.subscribeAsync(`${root}/${device.id}/ota`, { qos: 1 });
    await expect(client.subscribeAsync(`${root}/${other.id}/ota`, { qos: 1 })).rejects.toMatchObject({
      packet: { granted: [NOT_AUTHORIZED] },
    });
    await expect(client.publishAsync(`${root}/${other.id}/ota/status`, 'spoofed', { qos: 1 })).rejects.toMatchObject({
      code: NOT_AUTHORIZED,
    });
    await expect(client.publishAsync(`${root}/${device.id}/ota`, 'spoofed', { qos: 1 })).rejects.toMatchObject({
      code: NOT_AUTHORIZED,
    });

    await service.publishAsync(`${root}/${other.id}/ota`, '{"jobId":"not yours"}', { qos: 1 });
    await service.publishAsync(`${root}/${device.id}/ota`, '{"jobId":"j1"}', { qos: 1 });
    await until(() => (updates.length > 0 ? updates : undefined), 'an OTA update at the device');
    expect(updates).toEqual([`${root}/${device.id}/ota={"jobId":"j1"}`]);

    await client.publishAsync(`${root}/${device.id}/ota/status`, '{"jobId":"j1","state":"done"}', { qos: 1 });
    await serviceGot(`${root}/${device.id}/ota/status`, '{"jobId":"j1","state":"done"}');
    expect(received.filter((m) => m.payload === 'spoofed')).toEqual([]);
  });

  it('drops the session and refuses the old password after changePassword', async () => {
    const device = newDevice();
    const renewed = `dt_${randomBytes(16).toString('hex')}`;
    await credentials.provision(device.id, device.token);
    const client = await connectDevice(device.id, device.token);
    const gone = dropped(client);

    await credentials.changePassword(device.id, renewed);

    expect(await gone).toBe(ADMINISTRATIVE_ACTION);
    expect(await refusal(device.id, device.token)).toBe(NOT_AUTHORIZED);
    const again = await connectDevice(device.id, renewed);
    await again.publishAsync(`${root}/${device.id}/pin/V1`, 'after', { qos: 1 });
    await serviceGot(`${root}/${device.id}/pin/V1`, 'after');
  });

  it('drops the session and refuses the device after remove', async () => {
    const device = newDevice();
    await credentials.provision(device.id, device.token);
    const client = await connectDevice(device.id, device.token);
    const gone = dropped(client);

    await credentials.remove(device.id);

    expect(await gone).toBe(ADMINISTRATIVE_ACTION);
    expect(await refusal(device.id, device.token)).toBe(NOT_AUTHORIZED);
  });

  it('is idempotent: provision again changes the password, a missing device is fine', async () => {
    const device = newDevice();
    const renewed = `dt_${randomBytes(16).toString('hex')}`;
    await credentials.provision(device.id, device.token);
    await credentials.provision(device.id, renewed);
    expect(await refusal(device.id, device.token)).toBe(NOT_AUTHORIZED);
    await connectDevice(device.id, renewed);

    await credentials.remove(device.id);
    await credentials.remove(device.id);

    const unknown = newDevice();
    await credentials.changePassword(unknown.id, unknown.token);
    const client = await connectDevice(unknown.id, unknown.token);
    await client.publishAsync(`${root}/${unknown.id}/pin/V1`, 'provisioned by changePassword', { qos: 1 });
    await serviceGot(`${root}/${unknown.id}/pin/V1`, 'provisioned by changePassword');
  });

  it('rejects a device id that is not a single topic level', async () => {
    await expect(credentials.provision('a/b', 'dt_x')).rejects.toThrow('cannot be an MQTT username');
    await expect(credentials.remove('#')).rejects.toThrow('cannot be an MQTT username');
  });

  it('fails at start when the broker refuses the admin', async () => {
    await expect(createBrokerCredentials({ ...dynsecAdmin, password: 'wrong', topicRoot: root, logger })).rejects.toMatchObject({
      code: NOT_AUTHORIZED,
    });
  });

  it('leaves the broker alone when no dynamic security admin is configured', async () => {
    const plain = testConfig({ MQTT_DYNSEC_USERNAME: undefined, MQTT_DYNSEC_PASSWORD: undefined });
    expect(await brokerCredentialsFromConfig(plain, logger)).toBe(disabledBrokerCredentials);
    await expect(brokerCredentialsFromConfig({ ...plain, MQTT_DYNSEC_USERNAME: 'admin' }, logger)).rejects.toThrow('must be set together');
  });
});

describe('dynamic security client', () => {
  it('matches concurrent calls to their answers and carries the plugin error', async () => {
    const dynsec = await connectDynsecClient({ ...dynsecAdmin, logger });
    try {
      const devices = Array.from({ length: 10 }, newDevice);
      await Promise.all(devices.map((d) => credentials.provision(d.id, d.token)));

      const answers = await Promise.all(devices.map((d) => dynsec.send([{ command: 'getClient', username: d.id }])));

      const usernameOf = (data: unknown) => (data as { client?: { username?: string } }).client?.username;
      expect(answers.map(([answer]) => usernameOf(answer?.data))).toEqual(devices.map((d) => d.id));
      const missing = await dynsec.send([{ command: 'getClient', username: randomUUID() }]);
      expect(() => throwOnError(missing)).toThrow(new DynsecCommandError('getClient', 'Client not found'));
    } finally {
      await dynsec.close();
    }
  });

  it('fails a call the broker does not let through to the plugin', async () => {
    const notAdmin = await connectDynsecClient({
      url: config.MQTT_URL,
      username: config.MQTT_USERNAME ?? '',
      password: config.MQTT_PASSWORD ?? '',
      logger,
    });
    try {
      await expect(notAdmin.send([{ command: 'listClients' }])).rejects.toMatchObject(
        new DynsecUnavailableError(`publishing to $CONTROL/dynamic-security/v1 failed: Publish error: Not authorized`),
      );
    } finally {
      await notAdmin.close();
    }
  });
});
