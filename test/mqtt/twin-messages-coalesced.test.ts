/**
 * A device that floods its status and info topics costs its twin at most one signal a second of
 * each (DESIGN §11): later messages in that second are merged, not lost, and an `online` the
 * mirror already shows costs nothing.
 */
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';

let stack: Stack;
let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  stack = await startStack({ worker: true });
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

/** Signals the gateway sent to twins so far (every name), from its own metrics. */
async function signalsSent(): Promise<number> {
  const series = await stack.metrics();
  return Object.entries(series)
    .filter(([name]) => name.startsWith('dds_twin_calls_total{') && name.includes('kind="signal"') && name.includes('outcome="sent"'))
    .reduce((sum, [, value]) => sum + value, 0);
}

const statusOf = async (deviceId: string) =>
  (await stack.request('GET', `/api/v1/devices/${deviceId}/status`, { token: owner.token })).body.data;

test('200 online and 200 info messages in about a second reach the twin as a few signals, the last info whole', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  const root = `${stack.config.MQTT_TOPIC_ROOT}/${device.id}`;
  try {
    await client.publishAsync(`${root}/status`, 'online', { qos: 1 });
    await eventually(async () => expect((await statusOf(device.id)).status).toBe('online'), 20_000, 100);
    await eventually(
      async () => {
        const before = await signalsSent();
        await new Promise((r) => setTimeout(r, 500));
        expect(await signalsSent()).toBe(before);
      },
      20_000,
      0,
    );
    const before = await signalsSent();
    const started = Date.now();
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 199; i++) {
      sends.push(client.publishAsync(`${root}/status`, 'online', { qos: 1 }));
      // Each field from another message: merged, none lost.
      const info = i === 0 ? { ipAddress: '192.0.2.199' } : { firmwareVersion: `1.0.${i}` };
      sends.push(client.publishAsync(`${root}/info`, JSON.stringify(info), { qos: 1 }));
    }
    await Promise.all(sends);
    // Messages in flight together may be handled in any order (the broker spreads a device's
    // messages over the nodes' sessions): the last one sent after the others were acknowledged wins.
    await client.publishAsync(`${root}/status`, 'online', { qos: 1 });
    await client.publishAsync(`${root}/info`, JSON.stringify({ firmwareVersion: '2.0.0' }), { qos: 1 });
    const floodS = (Date.now() - started) / 1000;
    await eventually(
      async () => expect(await statusOf(device.id)).toMatchObject({ status: 'online', firmwareVersion: '2.0.0', ipAddress: '192.0.2.199' }),
      20_000,
      200,
    );
    const signals = (await signalsSent()) - before;
    // One info a second (and the window's held one): the online messages cost nothing.
    expect(signals).toBeGreaterThanOrEqual(1);
    expect(signals).toBeLessThanOrEqual(2 * Math.ceil(floodS) + 2);
  } finally {
    await client.endAsync();
  }
}, 90_000);
