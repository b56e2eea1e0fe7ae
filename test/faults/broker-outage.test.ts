/**
 * The broker stopped under a gateway of its own: an app's write to an online device answers
 * delivered:false within 2 s and reaches the device after the broker is back; creating a device
 * (which gives it a broker account) answers 503 naming mqtt within 2 s, never a 500, and /readyz
 * says mqtt is down; a project deleted meanwhile answers at once, and its devices' accounts are
 * removed (by the outbox relay) once the broker is back.
 */
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { ownMosquitto, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually } from '../helpers/wait';

let broker: RestartableServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  broker = await ownMosquitto();
  // A short heartbeat: the twin's check-back, which delivers what was kept, comes every few seconds.
  stack = await startStack({ overrides: { ...broker.env, DEVICE_HEARTBEAT_TIMEOUT_S: '3' }, worker: true });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await stopOwnServers();
});

test('broker stopped: an app write to an online device answers delivered:false at once, and the command arrives after the broker is back', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const root = stack.config.MQTT_TOPIC_ROOT;
  const client = await connectAsDevice(stack.config.MQTT_URL, device, { reconnectPeriod: 200 });
  try {
    const commands: string[] = [];
    client.on('message', (_topic, payload) => commands.push(payload.toString()));
    client.on('connect', () => void client.subscribeAsync(`${root}/${device.id}/pin/+/set`, { qos: 1 }));
    await client.subscribeAsync(`${root}/${device.id}/pin/+/set`, { qos: 1 });
    const talking = setInterval(() => {
      if (client.connected) void client.publishAsync(`${root}/${device.id}/pin/V0`, '1', { qos: 0 });
    }, 500);
    try {
      await eventually(async () => {
        const status = await stack.request('GET', `/api/v1/devices/${device.id}/status`, { token: owner.token });
        expect(status.body.data.status).toBe('online');
      }, 10_000);

      await broker.stop();
      await eventually(async () => expect((await stack.request('GET', '/readyz')).status).toBe(503), 5000);
      const write = await answerWithin(
        2000,
        'POST /api/v1/data (broker down)',
        stack.request('POST', `/api/v1/data/${device.id}/7`, { token: owner.token, body: { value: 'while-down' } }),
      );
      expect(write.status).toBe(201);
      expect(write.body.data).toEqual(expect.objectContaining({ value: 'while-down', delivered: false }));

      await broker.restart();
      await eventually(() => expect(commands).toContain('while-down'), 20_000, 100);
    } finally {
      clearInterval(talking);
    }
  } finally {
    await client.endAsync(true);
  }
}, 60_000);

test('broker stopped: /readyz says mqtt is down, and a device created meanwhile (201: the broker stores nothing) logs in once it is back', async () => {
  expect((await stack.request('GET', '/readyz')).status).toBe(200);
  await broker.stop();
  await eventually(async () => {
    const ready = await answerWithin(2000, 'GET /readyz', stack.request('GET', '/readyz'));
    expect(ready.status).toBe(503);
    expect(ready.body.error.details).toEqual([expect.objectContaining({ field: 'mqtt' })]);
  }, 5000);
  const created = await answerWithin(
    2000,
    'POST /api/v1/devices',
    stack.request('POST', '/api/v1/devices', { token: owner.token, body: { name: 'Sensor', projectId } }),
  );
  expect(created.status).toBe(201);
  await broker.restart();
  await eventually(async () => expect((await stack.request('GET', '/readyz')).status).toBe(200), 10_000);
  await (await connectAsDevice(stack.config.MQTT_URL, created.body.data)).endAsync();
}, 30_000);

test('broker stopped: a project deleted meanwhile answers 204 within 2 s, and its devices can no longer log in once the broker is back', async () => {
  const doomed = (await createProject(stack.request, owner)).id;
  const device = await createDevice(stack.request, owner, doomed);
  await (await connectAsDevice(stack.config.MQTT_URL, device)).endAsync();

  await broker.stop();
  const deleted = await answerWithin(
    2000,
    'DELETE /api/v1/projects (broker down)',
    stack.request('DELETE', `/api/v1/projects/${doomed}`, { token: owner.token }),
  );
  expect(deleted.status).toBe(204);
  await broker.restart();
  // The relay removes the account once the broker answers again: the device's login is refused.
  await eventually(
    async () => {
      await expect(connectAsDevice(stack.config.MQTT_URL, device, { connectTimeout: 2000 })).rejects.toThrow(/Not authorized/i);
    },
    30_000,
    500,
  );
  await eventually(async () => expect((await stack.metrics()).dds_outbox_pending).toBe(0));
}, 60_000);
