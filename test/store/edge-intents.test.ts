/**
 * A value's threshold rules go to the store step without the intents their edges would write
 * (store/store-point.ts, store/lua/store-point-13.lua): most values flip no edge, and 100 rules'
 * notifications and alarm edges made and sent per value were most of its cost. A value that flips
 * an edge is sent again with that rule's intents, and nothing is written twice.
 */
import { randomUUID } from 'node:crypto';
import { keys, streamOf } from '../../common/redis-keys';
import { type EdgeIntents, type RuleEdge, storePoint } from '../../store/store-point';
import { fileRedis, storeDevice } from '../helpers/store-device';

const redis = fileRedis('test-edge-intents');

/** A history stream of the device's own. */
const history = (deviceId: string): string => `test-edges-${deviceId}`;

const newDevice = (): Promise<string> => storeDevice(redis());

/** A rule edge whose intents name the rule and count how often they were made; `made` runs before they are returned. */
function edge(ruleId: string, state: RuleEdge['state'], made: () => Promise<void> | void = () => undefined) {
  const counted = { ruleId, state, made: 0 };
  const intents = (): EdgeIntents => {
    counted.made += 1;
    void made();
    return { onRaise: [['notification', { raised: ruleId }]], onClear: [['notification', { cleared: ruleId }]] };
  };
  return { counted, edge: { ruleId, state, intents } satisfies RuleEdge };
}

const store = (deviceId: string, value: string, ruleStates: RuleEdge[]) =>
  storePoint(redis(), {
    deviceId,
    pin: 'V1',
    value,
    at: new Date(),
    historyStream: history(deviceId),
    historyStreamMax: 1_000_000,
    towardDevice: false,
    fromDevice: true,
    wakeTtlS: 5,
    ruleStates,
    outbox: keys.outbox(deviceId),
  });

const written = async (deviceId: string): Promise<string[]> =>
  (await redis().xrange(streamOf(keys.outbox(deviceId), deviceId), '-', '+')).map(([, fields]) => String(fields[3]));

test('values that flip no edge never make their rules intents; a crossing makes only its rule intents, and writes them once', async () => {
  const deviceId = await newDevice();
  const quiet = Array.from({ length: 5 }, () => edge(randomUUID(), '0'));
  for (const value of ['1', '2', '3'])
    expect(
      (
        await store(
          deviceId,
          value,
          quiet.map((q) => q.edge),
        )
      ).crossed,
    ).toEqual([]);
  expect(quiet.map((q) => q.counted.made)).toEqual([0, 0, 0, 0, 0]);

  const hot = edge(randomUUID(), '1');
  const result = await store(deviceId, '90', [...quiet.map((q) => q.edge), hot.edge]);
  expect(result.crossed).toEqual([hot.counted.ruleId]);
  expect(hot.counted.made).toBe(1);
  expect(quiet.map((q) => q.counted.made)).toEqual([0, 0, 0, 0, 0]);
  expect(await written(deviceId)).toEqual([JSON.stringify({ raised: hot.counted.ruleId })]);
  const points = await redis().xrange(streamOf(history(deviceId), deviceId), '-', '+');
  expect(points).toHaveLength(4);

  const again = edge(hot.counted.ruleId, '1');
  expect((await store(deviceId, '91', [again.edge])).crossed).toEqual([]);
  expect(again.counted.made).toBe(0);
  const cleared = edge(hot.counted.ruleId, '0');
  await store(deviceId, '10', [cleared.edge]);
  expect(await written(deviceId)).toEqual([
    JSON.stringify({ raised: hot.counted.ruleId }),
    JSON.stringify({ cleared: hot.counted.ruleId }),
  ]);
});

test('an edge flipped by another node between two sends is found, and the last send carries every intent', async () => {
  const deviceId = await newDevice();
  const other = edge(randomUUID(), '0');
  await redis().hset(keys.deviceRuleState(deviceId), other.counted.ruleId, '0');
  // While this value's crossing intents are made, another node's value raises the other rule.
  const hot = edge(randomUUID(), '1', () => {
    void redis().hset(keys.deviceRuleState(deviceId), other.counted.ruleId, '1');
  });
  const result = await store(deviceId, '90', [hot.edge, other.edge]);
  expect(result.crossed).toEqual([hot.counted.ruleId]);
  expect(other.counted.made).toBe(1);
  expect(await written(deviceId)).toEqual([
    JSON.stringify({ raised: hot.counted.ruleId }),
    JSON.stringify({ cleared: other.counted.ruleId }),
  ]);
  expect(await redis().hmget(keys.deviceRuleState(deviceId), hot.counted.ruleId, other.counted.ruleId)).toEqual(['1', '0']);
});
