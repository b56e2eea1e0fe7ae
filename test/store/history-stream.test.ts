/**
 * The history stream's bulk entries against a real Redis (store/history-stream.ts): one entry per
 * import that stands for as many stream ids as it has readings, counted in readings against the
 * bound, and taken off the backlog exactly once when acknowledged.
 */
import { randomUUID } from 'node:crypto';
import { createRedis, type Redis } from '../../common/redis';
import { keys, streamOf } from '../../common/redis-keys';
import { acknowledgePersisted, HISTORY_GROUP, parseEntry, streamLag, type StreamEntry } from '../../store/history-stream';
import { importPoints } from '../../store/import-points';
import { testConfig } from '../harness/config';

let redis: Redis;

beforeAll(() => {
  redis = createRedis(testConfig(), 'test-history-stream');
});

afterAll(async () => {
  await redis.quit();
});

async function device(): Promise<string> {
  const deviceId = randomUUID();
  await redis.hset(keys.device(deviceId), 'projectId', randomUUID());
  return deviceId;
}

const readings = (count: number, at: number) => Array.from({ length: count }, (_, i) => ({ pin: 'V1', value: String(i), ms: at }));

async function entries(stream: string): Promise<StreamEntry[]> {
  return (await redis.xrange(stream, '-', '+')) as StreamEntry[];
}

it('gives every reading of a bulk entry an id no later entry gets, and counts it against the bound', async () => {
  const family = `test:history:${randomUUID()}`;
  const deviceId = await device();
  const stream = streamOf(family, deviceId);
  const at = Date.now();
  await importPoints(redis, { deviceId, readings: readings(5, at), historyStream: family, historyStreamMax: 100 });
  const [bulk] = await entries(stream);
  const carried = parseEntry(bulk as StreamEntry) ?? [];
  expect(carried.map((p) => [p.deviceId, p.pin, p.value, p.ms])).toEqual(readings(5, at).map((r) => [deviceId, 'V1', r.value, at]));
  // The ids ms-n … ms-(n+4) are the readings'; the stream's last id is the last of them.
  const [ms, n] = (bulk?.[0] ?? '').split('-').map(Number);
  expect(carried.map((p) => p.entryId)).toEqual([0, 1, 2, 3, 4].map((i) => `${ms}-${(n ?? 0) + i}`));
  const info = (await redis.xinfo('STREAM', stream)) as unknown[];
  expect(info[info.indexOf('last-generated-id') + 1]).toBe(`${ms}-${(n ?? 0) + 4}`);
  const next = await redis.xadd(stream, '*', 'p', `${at} ${deviceId} V2 x`);
  expect(carried.map((p) => p.entryId)).not.toContain(next);
  expect(await streamLag(redis, stream)).toMatchObject({ backlog: 6 });
  // 6 points in the stream: 95 more fit in no import; 94 do.
  await expect(
    importPoints(redis, { deviceId, readings: readings(95, at), historyStream: family, historyStreamMax: 100 }),
  ).rejects.toMatchObject({ code: 'HISTORY_BACKLOG' });
  await importPoints(redis, { deviceId, readings: readings(94, at), historyStream: family, historyStreamMax: 100 });
  expect(await streamLag(redis, stream)).toMatchObject({ backlog: 100 });
  await redis.del(stream, keys.historyExtra(stream), keys.device(deviceId), keys.devicePins(deviceId));
});

it('takes a bulk entry off the backlog once, however often it is acknowledged', async () => {
  const family = `test:history:${randomUUID()}`;
  const deviceId = await device();
  const stream = streamOf(family, deviceId);
  await redis.xgroup('CREATE', stream, HISTORY_GROUP, '0', 'MKSTREAM');
  await importPoints(redis, { deviceId, readings: readings(10, Date.now()), historyStream: family, historyStreamMax: 100 });
  await redis.xadd(stream, '*', 'p', `${Date.now()} ${deviceId} V2 x`);
  expect(await streamLag(redis, stream)).toMatchObject({ backlog: 11 });
  const acks = (await entries(stream)).flatMap(([id, fields]) => [id, fields?.[0] === 'b' ? 9 : 0]);
  expect(await acknowledgePersisted(redis, stream, acks)).toBe(2);
  expect(await acknowledgePersisted(redis, stream, acks)).toBe(0);
  expect(await streamLag(redis, stream)).toMatchObject({ backlog: 0 });
  expect(Number(await redis.get(keys.historyExtra(stream)))).toBe(0);
  await redis.del(stream, keys.historyExtra(stream), keys.device(deviceId), keys.devicePins(deviceId));
});
