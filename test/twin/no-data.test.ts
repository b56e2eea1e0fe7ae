import { addRule, createDevice, createTwinTestEnv, deviceMessage, eventually, notificationsOf, sleep, type TwinTestEnv } from './helpers';
import { keys } from '../../common/redis-keys';

let env: TwinTestEnv;

beforeAll(async () => {
  // A long heartbeat, so only the no_data timers act in these tests.
  env = await createTwinTestEnv('nodata', 60);
});

afterAll(async () => {
  await env?.cleanup();
});

/** Waits until the twin's (one) no_data timer has checked back `count` more times: its next check moved that many durations on. */
async function checkBacksPass(deviceId: string, count: number): Promise<void> {
  const timerOf = async () => {
    const timer = (await env.twins.state(deviceId))?.noData[0];
    if (!timer) throw new Error('no no_data timer');
    return timer;
  };
  const first = await timerOf();
  const until = Date.parse(first.checkAt) + count * first.durationS * 1000;
  await eventually(
    async () => expect(Date.parse((await timerOf()).checkAt)).toBeGreaterThanOrEqual(until),
    (count + 3) * first.durationS * 1000,
  );
}

const noDataOf = async (projectId: string) => (await notificationsOf(env.redis, projectId)).filter((n) => n.type === 'no_data');

describe('device twin: no_data rules', () => {
  test('fires once per silence of its duration on its pin, and re-arms when data returns', async () => {
    const device = await createDevice(env.redis);
    const rule = await addRule(env.redis, device, { condition: 'no_data', pin: 3, duration: 1, message: 'V3 silent, last {value}' });
    await deviceMessage(env.redis, device.deviceId, 'V3', '21.5');
    await env.twins.start(device.deviceId, device.projectId);

    // Data on another pin does not count for V3.
    const other = setInterval(() => void deviceMessage(env.redis, device.deviceId, 'V4', 'x'), 200);
    try {
      const [first] = await eventually(async () => {
        const n = await noDataOf(device.projectId);
        expect(n).toHaveLength(1);
        return n;
      }, 5000);
      expect(first).toMatchObject({
        ruleId: rule.id,
        deviceId: device.deviceId,
        title: 'No data on V3',
        message: 'V3 silent, last 21.5',
        read: false,
      });

      // The silence goes on for three more check-backs: still exactly one.
      await checkBacksPass(device.deviceId, 3);
      expect(await noDataOf(device.projectId)).toHaveLength(1);
      const state = await env.twins.state(device.deviceId);
      expect(state?.noData).toEqual([expect.objectContaining({ ruleId: rule.id, pin: 'V3', fired: true })]);
    } finally {
      clearInterval(other);
    }

    // Data returns and flows for a while (faster than the duration): re-armed, nothing fires.
    for (let i = 0; i < 8; i += 1) {
      await deviceMessage(env.redis, device.deviceId, 'V3', String(i));
      await sleep(250);
    }
    expect(await noDataOf(device.projectId)).toHaveLength(1);
    await eventually(async () => expect((await env.twins.state(device.deviceId))?.noData[0]?.fired).toBe(false));

    // A new silence: exactly one more.
    await eventually(async () => expect(await noDataOf(device.projectId)).toHaveLength(2), 5000);
    await checkBacksPass(device.deviceId, 2);
    const all = await noDataOf(device.projectId);
    expect(all).toHaveLength(2);
    expect(all[1]?.message).toBe('V3 silent, last 7');
  });

  test('a rule without a pin watches any data of the device; rulesChanged loads new rules', async () => {
    const device = await createDevice(env.redis);
    await env.twins.start(device.deviceId, device.projectId);
    await eventually(async () => expect(await env.twins.state(device.deviceId)).not.toBeNull());

    const rule = await addRule(env.redis, device, { condition: 'no_data', pin: null, duration: 1 });
    await addRule(env.redis, device, { condition: 'gt', pin: 1, threshold: 5 }); // the gateway's, not the twin's
    await addRule(env.redis, device, { condition: 'offline', enabled: false });
    const { rules } = await env.twins.rulesChanged(device.deviceId, device.projectId);
    expect(rules.map((r) => r.id)).toEqual([rule.id]);

    // Any pin keeps it quiet.
    for (let i = 0; i < 8; i += 1) {
      await deviceMessage(env.redis, device.deviceId, i % 2 ? 'V9' : 'D2', '1');
      await sleep(250);
    }
    expect(await noDataOf(device.projectId)).toHaveLength(0);

    const [record] = await eventually(async () => {
      const n = await noDataOf(device.projectId);
      expect(n).toHaveLength(1);
      return n;
    }, 5000);
    expect(record).toMatchObject({ title: 'No data from device', message: 'No data from the device for 1 s' });

    // Removing the rule stops its timer.
    await env.redis.srem(keys.deviceRules(device.deviceId), rule.id);
    expect((await env.twins.rulesChanged(device.deviceId, device.projectId)).rules).toEqual([]);
    expect((await env.twins.state(device.deviceId))?.noData).toEqual([]);
  });
});
