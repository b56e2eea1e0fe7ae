/**
 * A device's echo that overtakes its command's move to `sent` (store/lua/command-4.lua): the
 * device got the publish and answered before the sender's move landed, so the move finds the echo
 * stored and acknowledges the command, instead of leaving it `sent` for good (issue 41: one receipt
 * a cluster run never reached a final state). An equal value reported before the command was made,
 * or an app's own write, acknowledges nothing.
 */
import { randomUUID } from 'node:crypto';
import { keys } from '../../common/redis-keys';
import { idInShardOf } from '../../common/shard-ids';
import { createCommandStore, type StoredCommand } from '../../store/commands';
import { storePoint } from '../../store/store-point';
import { fileRedis, storeDevice } from '../helpers/store-device';

const redis = fileRedis('test-command-echo-first');

const history = `test-echo-first-${randomUUID()}`;

const newDevice = (): Promise<string> => storeDevice(redis());

function store(deviceId: string, value: string, from: 'device' | 'app', command?: Omit<StoredCommand, 'projectId'>) {
  return storePoint(redis(), {
    deviceId,
    pin: 'V1',
    value,
    at: new Date(),
    historyStream: history,
    historyStreamMax: 1_000_000,
    towardDevice: from === 'app',
    fromDevice: from === 'device',
    wakeTtlS: 5,
    ruleStates: [],
    outbox: keys.outbox('no-rules'),
    ...(command ? { command } : {}),
  });
}

function commandOf(deviceId: string, value: string): Omit<StoredCommand, 'projectId'> {
  const now = new Date();
  return {
    id: idInShardOf(deviceId),
    deviceId,
    pin: 'V1',
    value,
    state: 'queued',
    createdAt: now.toISOString(),
    createdMs: now.getTime(),
    sentAt: null,
    acknowledgedAt: null,
    expiresAt: null,
  };
}

test('an echo stored before the move to sent acknowledges the command at that move', async () => {
  const commands = createCommandStore(redis());
  const deviceId = await newDevice();
  const command = commandOf(deviceId, '42');
  await store(deviceId, '42', 'app', command);
  await store(deviceId, '42', 'device');
  const moved = await commands.move(deviceId, command.id, 'sent');
  expect(moved?.command).toMatchObject({ state: 'acknowledged', sentAt: expect.any(String), acknowledgedAt: expect.any(String) });
  expect(await redis().hget(keys.deviceState(deviceId), 'ack:V1')).toBeNull();
});

test('without an echo the move leaves it sent and awaited; an equal value reported before the command acknowledges nothing', async () => {
  const commands = createCommandStore(redis());
  const deviceId = await newDevice();
  await store(deviceId, '7', 'device');
  const command = commandOf(deviceId, '7');
  await store(deviceId, '7', 'app', command);
  expect((await commands.move(deviceId, command.id, 'sent'))?.command.state).toBe('sent');
  expect(JSON.parse((await redis().hget(keys.deviceState(deviceId), 'ack:V1')) as string)).toEqual({ commandId: command.id, value: '7' });
});
