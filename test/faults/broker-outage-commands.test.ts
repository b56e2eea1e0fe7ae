/**
 * The broker stopped for 10 s under an online device, with the twin's default heartbeat (so the
 * twin never sees the device offline): a write from each app door answers `delivered: false` at
 * once, and each value reaches the device's `/set` topic within 10 s of its reconnect, with its
 * command receipt moved on to `sent`.
 */
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { createApiKey, enableSimpleApi, setPlan } from '../external/fixtures';
import { ownMosquitto, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { answerWithin, eventually, sleep } from '../helpers/wait';

let broker: RestartableServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  broker = await ownMosquitto();
  stack = await startStack({ overrides: broker.env, worker: true });
  owner = await registerUser(stack.request);
  await setPlan(stack.request, owner, 'pro');
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
  await stopOwnServers();
});

test('writes answered delivered:false while the broker was down reach the online device within 10 s of its reconnect', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const apiKey = (await createApiKey(stack.request, owner)).key;
  const simpleToken = await enableSimpleApi(stack.request, owner, device.id);
  const root = stack.config.MQTT_TOPIC_ROOT;
  const client = await connectAsDevice(stack.config.MQTT_URL, device, { reconnectPeriod: 200 });
  const received = new Map<string, number>();
  let reconnectedAt = 0;
  client.on('message', (topic, payload) => received.set(`${topic.split('/').at(-2)}=${payload.toString()}`, Date.now()));
  client.on('connect', () => {
    reconnectedAt = Date.now();
    void client.subscribeAsync(`${root}/${device.id}/pin/+/set`, { qos: 1 });
  });
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
    const stoppedAt = Date.now();
    const writes = await Promise.all([
      answerWithin(
        2000,
        'POST /api/v1/data',
        stack.request('POST', `/api/v1/data/${device.id}/7`, { token: owner.token, body: { value: 'mgmt' } }),
      ),
      answerWithin(
        2000,
        'PUT external pin',
        stack.request('PUT', `/external/api/v1/devices/${device.id}/pins/V8`, {
          headers: { 'X-API-Key': apiKey },
          body: { value: 'external' },
        }),
      ),
      answerWithin(2000, 'GET simple /update', stack.request('GET', `/external/api/update?token=${simpleToken}&pin=V9&value=simple`)),
    ]);
    for (const write of writes) {
      expect(write.status).toBeLessThan(300);
      expect(write.body.data?.delivered ?? write.body.delivered).toBe(false);
    }
    const commandId: string = writes[0].body.data.commandId;
    await sleep(Math.max(0, 10_000 - (Date.now() - stoppedAt)));
    await broker.restart();

    const expected = ['V7=mgmt', 'V8=external', 'V9=simple'];
    await eventually(() => expect([...received.keys()]).toEqual(expect.arrayContaining(expected)), 20_000, 100);
    for (const value of expected) expect((received.get(value) as number) - reconnectedAt).toBeLessThan(10_000);
    const command = await stack.request('GET', `/api/v1/commands/${commandId}`, { token: owner.token });
    expect(command.body.data.state).toBe('sent');
  } finally {
    clearInterval(talking);
    await client.endAsync(true);
  }
}, 90_000);
