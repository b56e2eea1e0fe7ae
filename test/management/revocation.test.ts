import mqtt, { type IDisconnectPacket } from 'mqtt';
import { startStack, type Stack } from '../helpers/stack';
import { addMember, createDevice, createProject, registerUser, writeValue, type TestUser } from '../helpers/fixtures';
import { collect, connectSocket, emitWithAck, nextEvent, type ClientSocket } from '../helpers/socket';
import { keys } from '../../common/redis-keys';

const NOT_AUTHORIZED = 135;
const ADMINISTRATIVE_ACTION = 152;

let stack: Stack;
const sockets: ClientSocket[] = [];
const devices: mqtt.MqttClient[] = [];

beforeAll(async () => {
  stack = await startStack({ nodes: 2 });
}, 60_000);

afterAll(async () => {
  for (const s of sockets) s.close();
  await Promise.all(devices.map((d) => d.endAsync(true)));
  await stack.stop();
});

const nodeA = () => stack.nodes[0]!;
const nodeB = () => stack.nodes[1]!;

async function socketOnB(user: TestUser, ...targets: ({ projectId: string } | { deviceId: string })[]): Promise<ClientSocket> {
  const socket = await connectSocket(nodeB().baseUrl, user.token);
  sockets.push(socket);
  for (const target of targets)
    expect(await emitWithAck(socket, 'subscribe', target)).toMatchObject({ success: true, seq: expect.any(Object) });
  return socket;
}

function connectDevice(deviceId: string, password: string): Promise<mqtt.MqttClient> {
  return mqtt
    .connectAsync(
      stack.config.MQTT_URL,
      { username: deviceId, password, protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 3000 },
      false,
    )
    .then((client) => {
      devices.push(client);
      return client;
    });
}

/** Resolves with the broker's DISCONNECT reason once `client`'s connection is closed. */
function dropped(client: mqtt.MqttClient): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    let reason: number | undefined;
    const timer = setTimeout(() => reject(new Error('the device session was not dropped')), 5000);
    client.once('disconnect', (packet: IDisconnectPacket) => {
      reason = packet.reasonCode;
    });
    client.once('close', () => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

describe('revocations take effect on every node', () => {
  it('a member removed through node A stops getting the project and device events on node B at once', async () => {
    const [owner, removed, staying] = await Promise.all([
      registerUser(nodeA().request),
      registerUser(nodeA().request),
      registerUser(nodeA().request),
    ]);
    const project = await createProject(nodeA().request, owner);
    const device = await createDevice(nodeA().request, owner, project.id);
    await addMember(nodeA().request, owner, project.id, removed, 'viewer');
    await addMember(nodeA().request, owner, project.id, staying, 'viewer');
    const removedSocket = await socketOnB(removed, { projectId: project.id }, { deviceId: device.id });
    const stayingSocket = await socketOnB(staying, { projectId: project.id });

    const before = nextEvent(removedSocket, 'pin:update', (e) => e.value === 'before');
    await writeValue(nodeA().request, owner, device.id, 1, 'before');
    await before;

    const res = await nodeA().request('DELETE', `/api/v1/projects/${project.id}/members/${removed.id}`, { token: owner.token });
    expect(res.status).toBe(204);
    const seenByRemoved = collect(removedSocket, 'pin:update');
    const after = nextEvent(stayingSocket, 'pin:update', (e) => e.value === 'after');
    await writeValue(nodeA().request, owner, device.id, 1, 'after');

    expect(await after).toMatchObject({ deviceId: device.id, pin: 'V1', value: 'after' });
    // Node B pushed 'after' before it read this request; an update it sent the removed socket would
    // have come down that socket's connection ahead of this answer.
    expect(await emitWithAck(removedSocket, 'subscribe', { projectId: project.id })).toMatchObject({
      success: false,
      error: { code: 'PROJECT_NOT_FOUND' },
    });
    expect(seenByRemoved).toEqual([]);
    expect(removedSocket.connected).toBe(true);
  });

  it('a session logged out through node A has its socket on node B disconnected, so it can write no more', async () => {
    const user = await registerUser(nodeA().request);
    const project = await createProject(nodeA().request, user);
    const device = await createDevice(nodeA().request, user, project.id);
    const socket = await socketOnB(user, { deviceId: device.id });
    expect(await emitWithAck(socket, 'pin:write', { deviceId: device.id, pin: 'V2', value: 'while logged in' })).toMatchObject({
      success: true,
    });
    const disconnected = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the socket was not disconnected')), 5000);
      socket.once('disconnect', (reason) => {
        clearTimeout(timer);
        resolve(reason);
      });
    });

    const res = await nodeA().request('POST', '/api/v1/auth/logout', { token: user.token });
    expect(res.status).toBe(204);

    expect(await disconnected).toBe('io server disconnect');
    // Sent as soon as the socket is connected again, which its revoked session no longer allows.
    socket.emit('pin:write', { deviceId: device.id, pin: 'V2', value: 'after logout' });
    const reconnect = new Promise<Error>((resolve) => socket.once('connect_error', resolve));
    socket.connect();
    expect((await reconnect).message).toBe('UNAUTHORIZED');
    expect(socket.connected).toBe(false);
    expect(JSON.parse((await stack.redis.hget(keys.devicePins(device.id), 'V2')) ?? '{}')).toMatchObject({ value: 'while logged in' });
  });

  it("a deleted project's devices lose their broker accounts and sessions", async () => {
    const owner = await registerUser(nodeA().request);
    const project = await createProject(nodeA().request, owner);
    const [first, second] = [
      await createDevice(nodeA().request, owner, project.id),
      await createDevice(nodeA().request, owner, project.id),
    ];
    const online = await connectDevice(first.id, first.token);
    const gone = dropped(online);

    const res = await nodeA().request('DELETE', `/api/v1/projects/${project.id}`, { token: owner.token });
    expect(res.status).toBe(204);

    expect(await gone).toBe(ADMINISTRATIVE_ACTION);
    for (const device of [first, second]) {
      const refusal = await connectDevice(device.id, device.token).then(
        () => 'connected',
        (err: { code?: unknown }) => err.code,
      );
      expect(refusal).toBe(NOT_AUTHORIZED);
    }
  });
});
