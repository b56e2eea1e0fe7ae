/**
 * Temporal stopped for 60 s while devices send `info` and `status`: the bridge acknowledges each
 * once its intent is in the outbox, and after Temporal is back the twins show what was sent
 * during the outage (the relay hands it over), not what they showed before.
 */
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { ownDurableTemporal, stopOwnServers, type RestartableServer } from '../helpers/own-servers';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';

const OUTAGE_MS = 60_000;

let temporal: RestartableServer;
let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  temporal = await ownDurableTemporal();
  stack = await startStack({ overrides: temporal.env, worker: true });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 90_000);

afterAll(async () => {
  await stack.stop();
  await stopOwnServers();
});

const statusOf = async (deviceId: string) =>
  (await stack.request('GET', `/api/v1/devices/${deviceId}/status`, { token: owner.token })).body.data;

test('info and status sent while Temporal is stopped for 60 s reach the twins once it is back', async () => {
  const root = stack.config.MQTT_TOPIC_ROOT;
  const devices = await Promise.all([1, 2, 3].map(() => createDevice(stack.request, owner, projectId)));
  const clients = await Promise.all(devices.map((d) => connectAsDevice(stack.config.MQTT_URL, d)));
  try {
    for (const [i, d] of devices.entries()) {
      await clients[i]!.publishAsync(`${root}/${d.id}/status`, 'online', { qos: 1 });
      await clients[i]!.publishAsync(`${root}/${d.id}/info`, JSON.stringify({ firmwareVersion: '1.0.0' }), { qos: 1 });
    }
    for (const d of devices) {
      await eventually(async () => expect(await statusOf(d.id)).toMatchObject({ status: 'online', firmwareVersion: '1.0.0' }), 20_000, 200);
    }

    await temporal.stop();
    const stoppedAt = Date.now();
    for (const [i, d] of devices.entries()) {
      await clients[i]!.publishAsync(
        `${root}/${d.id}/info`,
        JSON.stringify({ firmwareVersion: `2.0.${i}`, ipAddress: `192.0.2.${i + 1}` }),
        { qos: 1 },
      );
    }
    // The first device says it goes offline; the others stay online, sending values (activity
    // the twins read from Redis at their check-backs: the outage outlasts the heartbeat timeout).
    await clients[0]!.publishAsync(`${root}/${devices[0]!.id}/status`, 'offline', { qos: 1 });
    const talking = setInterval(() => {
      for (const [i, d] of devices.entries()) if (i > 0) void clients[i]!.publishAsync(`${root}/${d.id}/pin/V0`, '1', { qos: 0 });
    }, 1000);
    try {
      await sleep(Math.max(0, OUTAGE_MS - (Date.now() - stoppedAt)));
      await temporal.restart();

      for (const [i, d] of devices.entries()) {
        await eventually(
          async () =>
            expect(await statusOf(d.id)).toMatchObject({
              status: i === 0 ? 'offline' : 'online',
              firmwareVersion: `2.0.${i}`,
              ipAddress: `192.0.2.${i + 1}`,
            }),
          // The relay's retries back off to a minute while Temporal is down.
          120_000,
          500,
        );
      }
    } finally {
      clearInterval(talking);
    }
  } finally {
    await Promise.allSettled(clients.map((c) => c.endAsync(true)));
  }
}, 330_000);
