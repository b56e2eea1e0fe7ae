import { twinWorkflowId } from '../../common/contracts';
import { keys } from '../../common/redis-keys';
import { activitySignal, infoSignal } from '../../workflows/twin/definitions';
import { HISTORY_EVENT_BUDGET, RUN_MESSAGE_BUDGET } from '../../workflows/twin/continue-as-new';
import { addRule, createDevice, createTwinTestEnv, eventually, mirror, type TwinTestEnv } from './helpers';

let env: TwinTestEnv;

beforeAll(async () => {
  env = await createTwinTestEnv('history', 600);
});

afterAll(async () => {
  await env?.cleanup();
});

const SIGNALS = 8_000;
const IN_FLIGHT = 8;
const BURST = 500;

test('continue-as-new keeps every bit of state across 8,000 signals', async () => {
  const device = await createDevice(env.redis);
  const rule = await addRule(env.redis, device, { condition: 'no_data', pin: 4, duration: 3600 });
  await env.twins.start(device.deviceId, device.projectId);
  const lock = await env.twins.lock(device.deviceId, device.projectId, 'V1', 'keypad-1');
  const handle = env.client.workflow.getHandle(twinWorkflowId(device.deviceId));
  const firstRunId = (await handle.describe()).runId;

  // The gateway signals a twin only on state changes (a few per second at most); this sends
  // bursts as fast as the dev server takes them, waiting for each burst to be applied (a twin
  // sustains a few hundred signals per second; a flood beyond that only makes Temporal replay).
  const base = Date.now();
  const atOf = (i: number) => new Date(base + i).toISOString();
  const infoEvery = 2000;
  let next = 0;
  let signalsAtRunStart = 0;
  const t0 = Date.now();
  while (next < SIGNALS - 1) {
    const end = Math.min(SIGNALS - 1, next + BURST);
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < end) {
          const i = next;
          next += 1;
          if (i % infoEvery === infoEvery - 1) await handle.signal(infoSignal, { firmwareVersion: `fw-${i}` });
          else await handle.signal(activitySignal, { at: atOf(i), pin: `V${i % 8}` });
        }
      }),
    );
    const applied = await eventually(
      async () => {
        const st = await env.twins.state(device.deviceId);
        expect(st?.stats.signals).toBe(end);
        return st;
      },
      20_000,
      25,
    );
    if (end - signalsAtRunStart > RUN_MESSAGE_BUDGET) {
      // Continue-as-new is due; it waits for a lull in messages, which this pause is.
      const runs = applied?.stats.runs ?? 0;
      // On a loaded machine the lull and the new run's first task can take tens of seconds.
      await eventually(async () => expect((await env.twins.state(device.deviceId))?.stats.runs).toBe(runs + 1), 60_000, 250);
      signalsAtRunStart = end;
    }
  }
  await handle.signal(infoSignal, { firmwareVersion: 'fw-final' }); // the last, after all others
  process.stderr.write(`history test: ${SIGNALS} signals in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);

  const state = await eventually(
    async () => {
      const s = await env.twins.state(device.deviceId);
      expect(s?.stats.signals).toBe(SIGNALS);
      return s;
    },
    20_000,
    200,
  );
  expect(state).toMatchObject({
    status: 'online',
    locks: [lock],
    rules: [expect.objectContaining({ id: rule.id, condition: 'no_data', pin: 'V4', duration: 3600 })],
    noData: [expect.objectContaining({ ruleId: rule.id, pin: 'V4', fired: false })],
  });
  // lastSeen is the newest activity time, whatever order the signals arrived in.
  const newestActivity = SIGNALS - 2;
  expect(state?.lastSeen).toBe(atOf(newestActivity));
  expect(state?.pinActivity[`V${newestActivity % 8}`]).toBe(atOf(newestActivity));
  expect(state?.firmwareVersion).toBe('fw-final');
  expect(state?.stats.runs).toBeGreaterThanOrEqual(3); // continued as new every ~2,000 messages

  const description = await handle.describe();
  expect(description.status.name).toBe('RUNNING');
  expect(description.runId).not.toBe(firstRunId);
  expect(description.historyLength).toBeLessThan(HISTORY_EVENT_BUDGET + 1000);

  // The mirror agrees, and the continued twin still answers Updates.
  expect(await mirror(env.redis, device.deviceId)).toMatchObject({ status: 'online' });
  expect(await env.twins.unlock(device.deviceId, device.projectId, 'V1', 'keypad-1')).toEqual({ released: true });
  expect(await env.redis.hexists(keys.deviceLocks(device.deviceId), 'V1')).toBe(0);
}, 240_000);
