/**
 * The store step keeps a device's recent MQTT deliveries (store/lua/store-point-13.lua, "Each
 * delivery stored once"): a try of a delivery stored already writes nothing, by its id always and by
 * its packet key only when the broker sent it again (DUP), since packet ids are reused; it still
 * names the command its value acknowledges, whose move the first try's lost reply never made.
 */
import { randomUUID } from 'node:crypto';
import { keys, streamOf } from '../../common/redis-keys';
import { createCommandStore } from '../../store/commands';
import { storePoint, type Delivery } from '../../store/store-point';
import { idInShardOf } from '../../common/shard-ids';
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

test("a retried echo whose first try's reply was lost still acknowledges the command it echoes", async () => {
  const deviceId = await newDevice();
  const commands = createCommandStore(redis());
  const now = new Date();
  const command = {
    id: idInShardOf(deviceId),
    deviceId,
    pin: 'V1',
    value: 'open',
    state: 'queued' as const,
    createdAt: now.toISOString(),
    createdMs: now.getTime(),
    sentAt: null,
    acknowledgedAt: null,
    expiresAt: null,
  };
  // The app's write makes the command, and the device is sent it.
  await storePoint(redis(), {
    deviceId,
    pin: 'V1',
    value: 'open',
    at: now,
    historyStream: history,
    historyStreamMax: 1_000_000,
    towardDevice: true,
    fromDevice: false,
    wakeTtlS: 5,
    ruleStates: [],
    outbox: keys.outbox('no-rules'),
    command,
  });
  expect((await commands.move(deviceId, command.id, 'sent'))?.command.state).toBe('sent');
  // The device's echo is stored, but the reply is lost: its command is not moved by that try.
  const echo = { id: 'eeeeeeeeeeee', packetKey: 'ffffffffffff', redelivered: false };
  expect((await store(deviceId, 'open', echo)).acknowledged).toBe(command.id);
  // The retry is a duplicate and writes nothing, but names the command, so the caller moves it.
  const retry = await store(deviceId, 'open', echo);
  expect(retry).toMatchObject({ duplicate: true, acknowledged: command.id });
  expect((await commands.move(deviceId, command.id, 'acknowledged'))?.command.state).toBe('acknowledged');
  expect((await commands.get(command.id))?.state).toBe('acknowledged');
  // Once moved, a later echo of the same value acknowledges nothing more.
  expect((await store(deviceId, 'open', { id: '999999999999', packetKey: '888888888888', redelivered: false })).acknowledged).toBeNull();
});
