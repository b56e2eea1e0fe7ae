/**
 * The store step keeps a device's recent MQTT deliveries (store/lua/store-point-13.lua, "Each
 * delivery stored once"): a try of a delivery stored already writes nothing, by its id always and by
 * its packet key only when the broker sent it again (DUP), since packet ids are reused.
 */
import { randomUUID } from 'node:crypto';
import { keys, streamOf } from '../../common/redis-keys';
import { storePoint, type Delivery } from '../../store/store-point';
import { fileRedis, storeDevice } from '../helpers/store-device';

const redis = fileRedis('test-delivery-once');

const history = `test-delivery-${randomUUID()}`;

const newDevice = (): Promise<string> => storeDevice(redis());

const store = (deviceId: string, value: string, delivery: Delivery) =>
  storePoint(redis(), {
    deviceId,
    pin: 'V1',
    value,
    at: new Date(),
    historyStream: history,
    historyStreamMax: 1_000_000,
    towardDevice: false,
    fromDevice: true,
    wakeTtlS: 5,
    ruleStates: [],
    outbox: keys.outbox('no-rules'),
    delivery,
  });

const storedValues = async (deviceId: string): Promise<string[]> =>
  (await redis().xrange(streamOf(history, deviceId), '-', '+'))
    .map(([, fields]) => String(fields[1]).split(' '))
    .filter((p) => p[1] === deviceId)
    .map((p) => p[3] as string);

test('a second try of one delivery is a duplicate and writes nothing', async () => {
  const deviceId = await newDevice();
  const delivery = { id: 'a1b2c3d4e5f6', packetKey: '0123456789ab', redelivered: false };
  expect((await store(deviceId, '1', delivery)).duplicate).toBe(false);
  expect(await store(deviceId, '1', delivery)).toMatchObject({ duplicate: true, wake: false, crossed: [] });
  expect(await storedValues(deviceId)).toEqual(['1']);
});

test('a redelivery is found by its packet key; a first delivery reusing a packet key is stored', async () => {
  const deviceId = await newDevice();
  await store(deviceId, '1', { id: '111111111111', packetKey: 'aaaaaaaaaaaa', redelivered: false });
  expect((await store(deviceId, '1', { id: '222222222222', packetKey: 'aaaaaaaaaaaa', redelivered: true })).duplicate).toBe(true);
  expect((await store(deviceId, '1', { id: '333333333333', packetKey: 'aaaaaaaaaaaa', redelivered: false })).duplicate).toBe(false);
  expect(await storedValues(deviceId)).toEqual(['1', '1']);
});

test('the device keeps its last 128 deliveries: an older one is stored again', async () => {
  const deviceId = await newDevice();
  const nth = (n: number): Delivery => ({
    id: n.toString(16).padStart(12, '0'),
    packetKey: (n + 0x100000).toString(16).padStart(12, 'f'),
    redelivered: false,
  });
  for (let n = 1; n <= 129; n++) await store(deviceId, String(n), nth(n));
  expect((await store(deviceId, '2', nth(2))).duplicate).toBe(true);
  expect((await store(deviceId, '1', nth(1))).duplicate).toBe(false);
});
