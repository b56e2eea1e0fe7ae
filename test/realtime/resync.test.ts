/**
 * Live views that never miss an update (issue 17, item 4, docs/realtime.md): every device event
 * carries a sequence number that only grows; a client that drops 10 events in a burst sees the
 * gap, asks for a resync and ends with the same latest values as the server. A device's
 * `pin:update` and `command` events are published by the script that makes the change: the store
 * step alone, with no node code after it (as if the node stopped right after its script ran),
 * shows the value and the write's command with their sequence numbers, and a command's move alone
 * its next state.
 */
import { randomUUID } from 'node:crypto';
import { rooms, type DeviceSnapshotEvent } from '../../common/contracts';
import { LiveView, type Applied } from '../../common/live-view';
import { createDevice, createProject, registerUser, writeValue, type TestUser } from '../helpers/fixtures';
import { collect, connectSocket, emitWithAck, subscribedSocket, type ClientSocket } from '../helpers/socket';
import { startStack, type Stack } from '../helpers/stack';
import { eventually } from '../helpers/wait';
import { keys } from '../../common/redis-keys';
import { idInShardOf } from '../../common/shard-ids';
import { createCommandStore } from '../../store/commands';
import { storePoint } from '../../store/store-point';

let stack: Stack;
let owner: TestUser;
let projectId: string;
const sockets: ClientSocket[] = [];

beforeAll(async () => {
  stack = await startStack();
  owner = await registerUser(stack.request);
  projectId = (await createProject(stack.request, owner)).id;
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.close();
  await stack.stop();
});

async function serverPins(deviceId: string): Promise<Record<string, string>> {
  const raw = await stack.redis.hgetall(keys.devicePins(deviceId));
  return Object.fromEntries(Object.entries(raw).map(([pin, json]) => [pin, (JSON.parse(json) as { value: string }).value]));
}

test('a client that drops 10 events in a burst detects the gap, resyncs and ends with the server’s latest values', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  await writeValue(stack.request, owner, device.id, 99, 'before');
  const socket = await connectSocket(stack.baseUrl, owner.token);
  sockets.push(socket);
  const view = new LiveView();
  const ack = await emitWithAck<{ success: boolean; seq: Record<string, number> }>(socket, 'subscribe', { deviceId: device.id });
  const subscribedAt = ack.seq[device.id] ?? 0;
  expect(subscribedAt).toBeGreaterThanOrEqual(1);
  view.subscribed(ack.seq);

  let received = 0;
  let gaps = 0;
  const seqs: number[] = [];
  const earlier: Applied[] = [];
  const resync = async () => {
    const answer = await emitWithAck<{ success: boolean; devices: DeviceSnapshotEvent[] }>(socket, 'resync', { deviceId: device.id });
    for (const snapshot of answer.devices) view.snapshot(snapshot);
  };
  /**
   * Every event of the device made after the subscription counts toward its sequence, whatever its
   * kind. An event of the write before it can still arrive after the ack (on a Redis Cluster it
   * reaches the adapter's subscriber through another master's cluster bus): the ack's seq covers
   * it and the view drops it.
   */
  const take = (deviceId: string, seq: number | undefined, apply: Parameters<LiveView['event']>[2]) => {
    if (seq !== undefined && seq <= subscribedAt) {
      earlier.push(view.event(deviceId, seq, apply));
      return;
    }
    received += 1;
    seqs.push(seq ?? -1);
    if (received >= 5 && received < 15) return; // lost: a burst of 10 events never reaches the client
    if (view.event(deviceId, seq, apply) === 'gap') {
      gaps += 1;
      void resync();
    }
  };
  socket.on('pin:update', (e) =>
    take(e.deviceId, e.seq, (v) => {
      v.pins[e.pin] = { value: e.value, updatedAt: e.updatedAt };
    }),
  );
  socket.on('command', (e) => take(e.deviceId, e.seq, () => undefined));

  // Each app write is a pin:update and a command (queued): 60 events.
  for (let i = 0; i < 30; i++) await writeValue(stack.request, owner, device.id, i, `v${i}`);
  await eventually(() => expect(received).toBe(60));
  const expected = await serverPins(device.id);
  await eventually(() => {
    const pins = Object.fromEntries(Object.entries(view.devices.get(device.id)?.pins ?? {}).map(([pin, p]) => [pin, p.value]));
    expect(pins).toEqual(expected);
  });
  expect(gaps).toBe(1);
  expect(earlier).toEqual(earlier.map(() => 'stale'));
  // One number per event of the device, none repeated, none skipped, right after the ack's.
  expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => subscribedAt + 1 + i));
  expect(Object.keys(expected)).toHaveLength(31); // V0..V29 and V99 (from before the subscription)
});

test('subscribe to a project acks every device’s sequence; resync of a project returns every device', async () => {
  const a = await createDevice(stack.request, owner, projectId);
  await writeValue(stack.request, owner, a.id, 1, 'x');
  const socket = await connectSocket(stack.baseUrl, owner.token);
  sockets.push(socket);
  const ack = await emitWithAck<{ success: boolean; seq: Record<string, number> }>(socket, 'subscribe', { projectId });
  expect(ack.seq[a.id]).toBeGreaterThanOrEqual(1);
  const answer = await emitWithAck<{ success: boolean; devices: DeviceSnapshotEvent[] }>(socket, 'resync', { projectId });
  expect(answer.devices.find((d) => d.deviceId === a.id)).toMatchObject({
    seq: ack.seq[a.id],
    status: 'offline',
    pins: { V1: { value: 'x', updatedAt: expect.any(String) } },
  });
  const stranger = await connectSocket(stack.baseUrl, (await registerUser(stack.request)).token);
  sockets.push(stranger);
  expect(await emitWithAck(stranger, 'resync', { projectId })).toMatchObject({ success: false, error: { code: 'PROJECT_NOT_FOUND' } });
});

test('the store step alone shows a write and its command; a move alone shows the command’s next state', async () => {
  const device = await createDevice(stack.request, owner, projectId);
  const byProject = await subscribedSocket(stack.baseUrl, owner.token, { projectId });
  const byDevice = await subscribedSocket(stack.baseUrl, owner.token, { deviceId: device.id });
  sockets.push(byProject, byDevice);
  const updates = [collect(byProject, 'pin:update'), collect(byDevice, 'pin:update')];
  const commands = [collect(byProject, 'command'), collect(byDevice, 'command')];
  const seqBefore = Number(await stack.redis.hget(keys.device(device.id), 'seq'));

  const at = new Date();
  const createdAt = new Date().toISOString();
  const commandId = idInShardOf(device.id);
  const value = `v-${randomUUID()}`;
  await storePoint(stack.redis, {
    deviceId: device.id,
    pin: 'V7',
    value,
    at,
    historyStream: keys.historyStream(stack.config.TEMPORAL_TASK_QUEUE),
    historyStreamMax: 1_000_000,
    towardDevice: true,
    fromDevice: false,
    wakeTtlS: 1,
    ruleStates: [],
    outbox: keys.outbox(stack.config.TEMPORAL_TASK_QUEUE),
    command: {
      id: commandId,
      deviceId: device.id,
      pin: 'V7',
      value,
      state: 'queued',
      createdAt,
      createdMs: Date.parse(createdAt),
      sentAt: null,
      acknowledgedAt: null,
      expiresAt: null,
    },
  });

  const queued = {
    id: commandId,
    deviceId: device.id,
    pin: 'V7',
    value,
    state: 'queued',
    createdAt,
    sentAt: null,
    acknowledgedAt: null,
    expiresAt: null,
  };
  await eventually(() => {
    for (const seen of updates)
      expect(seen).toEqual([{ deviceId: device.id, pin: 'V7', value, updatedAt: at.toISOString(), seq: seqBefore + 1 }]);
    for (const seen of commands) expect(seen).toEqual([{ ...queued, seq: seqBefore + 2 }]);
  });

  const sentAt = new Date().toISOString();
  expect((await createCommandStore(stack.redis).move(device.id, commandId, 'sent', sentAt))?.changed).toBe(true);
  await eventually(() => {
    for (const seen of commands)
      expect(seen).toEqual([
        { ...queued, seq: seqBefore + 2 },
        { ...queued, state: 'sent', sentAt, seq: seqBefore + 3 },
      ]);
  });
});

test('a socket sits in its project’s watch room while it watches the project or one of its devices, and leaves it with the last', async () => {
  const project = await createProject(stack.request, owner);
  const device = await createDevice(stack.request, owner, project.id);
  const socket = await connectSocket(stack.baseUrl, owner.token);
  sockets.push(socket);
  const watching = async (): Promise<number> => (await stack.composed.gateway.sockets.io.in(rooms.watch(project.id)).fetchSockets()).length;
  const updates = collect(socket, 'pin:update');

  expect(await emitWithAck(socket, 'subscribe', { deviceId: device.id })).toMatchObject({ success: true });
  expect(await watching()).toBe(1);
  expect(await emitWithAck(socket, 'subscribe', { projectId: project.id })).toMatchObject({ success: true });
  expect(await emitWithAck(socket, 'unsubscribe', { deviceId: device.id })).toEqual({ success: true });
  expect(await watching()).toBe(1);
  // Still watching the project: its devices' events still reach this node and the socket.
  await writeValue(stack.request, owner, device.id, 3, 'still watched');
  await eventually(() => expect(updates.map((u) => u.value)).toEqual(['still watched']));

  expect(await emitWithAck(socket, 'unsubscribe', { projectId: project.id })).toEqual({ success: true });
  expect(await watching()).toBe(0);
});

test('an unsubscribe and a subscribe to the same project sent back to back leave the socket watching it', async () => {
  const project = await createProject(stack.request, owner);
  const device = await createDevice(stack.request, owner, project.id);
  const socket = await subscribedSocket(stack.baseUrl, owner.token, { projectId: project.id });
  sockets.push(socket);
  const updates = collect(socket, 'pin:update');
  // Their access checks' replies come back together: the two handlers run interleaved.
  const acks = await Promise.all([
    emitWithAck(socket, 'unsubscribe', { projectId: project.id }),
    emitWithAck(socket, 'subscribe', { projectId: project.id }),
  ]);
  expect(acks).toMatchObject([{ success: true }, { success: true }]);
  const io = stack.composed.gateway.sockets.io;
  expect((await io.in(rooms.project(project.id)).fetchSockets()).length).toBe(1);
  expect((await io.in(rooms.watch(project.id)).fetchSockets()).length).toBe(1);
  await writeValue(stack.request, owner, device.id, 4, 'after the resubscribe');
  await eventually(() => expect(updates.map((u) => u.value)).toEqual(['after the resubscribe']));
});
