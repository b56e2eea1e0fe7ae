/**
 * A device's values beyond its owner's plan rate are dropped and counted (DESIGN §11). With a
 * burst of two seconds' worth (DEVICE_VALUES_BURST_S=2 here; 120 by default), a free device
 * bursting 100 values keeps about two seconds' worth; values paced within the rate are never
 * lost; a pro owner's device takes a burst the free one cannot.
 */
import { setPlan } from '../external/fixtures';
import { connectAsDevice, createDevice, createProject, registerUser, type TestUser } from '../helpers/fixtures';
import { startStack, type Stack } from '../helpers/stack';
import { eventually, sleep } from '../helpers/wait';

let stack: Stack;
let free: TestUser;
let pro: TestUser;

beforeAll(async () => {
  stack = await startStack({ overrides: { DEVICE_VALUES_BURST_S: '2' } });
  free = await registerUser(stack.request);
  pro = await registerUser(stack.request);
  await setPlan(stack.request, pro, 'pro');
}, 60_000);

afterAll(async () => {
  await stack.stop();
});

const dropped = async (): Promise<number> => (await stack.metrics()).dds_device_values_dropped_total ?? 0;

async function storedValues(user: TestUser, deviceId: string): Promise<string[]> {
  const res = await stack.request('GET', `/api/v1/data/${deviceId}/1?limit=100000&from=${new Date(Date.now() - 600_000).toISOString()}`, {
    token: user.token,
  });
  return (res.body.data.points as Array<{ value: number }>).map((p) => String(p.value));
}

/** Publishes `count` values 1..count on V1 at QoS 1, `gapMs` apart (0: all at once), each acknowledged by the broker. */
async function publish(user: TestUser, count: number, gapMs: number): Promise<{ id: string }> {
  const projectId = (await createProject(stack.request, user)).id;
  const device = await createDevice(stack.request, user, projectId);
  const client = await connectAsDevice(stack.config.MQTT_URL, device);
  try {
    const sends: Promise<unknown>[] = [];
    for (let n = 1; n <= count; n++) {
      sends.push(client.publishAsync(`${stack.config.MQTT_TOPIC_ROOT}/${device.id}/pin/V1`, String(n), { qos: 1 }));
      if (gapMs > 0) await sleep(gapMs);
    }
    await Promise.all(sends);
  } finally {
    await client.endAsync();
  }
  return device;
}

test("a free device's burst beyond 5 values a second is dropped and counted; the rest is stored", async () => {
  const before = await dropped();
  const device = await publish(free, 100, 0);
  await eventually(async () => expect(await dropped()).toBeGreaterThanOrEqual(before + 70), 10_000, 100);
  const stored = await eventually(
    async () => {
      const values = await storedValues(free, device.id);
      expect(values.length).toBeGreaterThanOrEqual(10);
      return values;
    },
    10_000,
    200,
  );
  expect(stored.length).toBeLessThanOrEqual(30);
  expect((await dropped()) - before + stored.length).toBe(100);
});

test('values paced within the rate are all stored, and a pro device takes a burst of 60', async () => {
  const paced = await publish(free, 12, 250);
  const burst = await publish(pro, 60, 0);
  await eventually(async () => expect((await storedValues(free, paced.id)).length).toBe(12), 10_000, 200);
  await eventually(async () => expect((await storedValues(pro, burst.id)).length).toBe(60), 10_000, 200);
});
