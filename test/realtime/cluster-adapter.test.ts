/**
 * Socket.IO across two nodes on a Redis Cluster (docs/architecture.md "Redis Cluster"): each node a
 * Socket.IO server on the gateway's Redis adapter with its own ioredis Cluster connections
 * (REDIS_CLUSTER_NODES), and the twin activities' emitter (@socket.io/redis-emitter) on a third.
 * The cluster is this file's own: 3 masters the harness starts (test/helpers/own-servers.ts).
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createAdapter } from '@socket.io/redis-adapter';
import { Server } from 'socket.io';
import { io as connectClient, type Socket } from 'socket.io-client';
import { createRoomEmitter } from '../../activities';
import { rooms, type DeviceStatusEvent } from '../../common/contracts';
import { createRedis, type Redis, subscriptionLineOf } from '../../common/redis';
import { testConfig } from '../harness/config';
import { ownRedisCluster, stopOwnServers } from '../helpers/own-servers';
import { eventually } from '../helpers/wait';

interface Node {
  io: Server;
  http: HttpServer;
  pub: Redis;
  sub: Redis;
  url: string;
}

const nodes: Node[] = [];
const clients: Socket[] = [];
let emitterRedis: Redis;

async function startNode(config: ReturnType<typeof testConfig>, name: string): Promise<Node> {
  const pub = createRedis(config, `test-${name}-pub`);
  const sub = createRedis(config, `test-${name}-sub`);
  const http = createServer();
  const io = new Server(http, { adapter: createAdapter(pub, sub) });
  io.on('connection', (socket) => {
    const room = socket.handshake.auth.room;
    if (typeof room === 'string') void socket.join(room);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { io, http, pub, sub, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

function connect(node: Node, room: string): Promise<Socket> {
  const client = connectClient(node.url, { transports: ['websocket'], auth: { room }, reconnection: false });
  clients.push(client);
  return new Promise((resolve) => client.once('connect', () => resolve(client)));
}

let config: ReturnType<typeof testConfig>;

beforeAll(async () => {
  const cluster = await ownRedisCluster();
  config = testConfig(cluster.env);
  nodes.push(await startNode(config, 'node-a'), await startNode(config, 'node-b'));
  emitterRedis = createRedis(config, 'test-emitter');
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const n of nodes) await new Promise((resolve) => n.io.close(resolve));
  await Promise.allSettled([emitterRedis?.quit(), ...nodes.flatMap((n) => [n.pub.quit(), n.sub.quit()])]);
  await stopOwnServers();
});

test('the service reaches the cluster through ioredis Cluster when REDIS_CLUSTER_NODES is set', async () => {
  expect(config.REDIS_CLUSTER_NODES).toHaveLength(3);
  expect(emitterRedis).toHaveProperty('isCluster', true);
  // Keys of different slots land on different masters: a plain SET/GET pair works for each.
  const names = Array.from({ length: 20 }, () => `probe:${randomUUID()}`);
  await Promise.all(names.map((k) => emitterRedis.set(k, k, 'EX', 60)));
  expect(await Promise.all(names.map((k) => emitterRedis.get(k)))).toEqual(names);
});

test('each node finds its adapter subscription on the cluster (the readiness check)', async () => {
  for (const node of nodes) {
    await eventually(async () => {
      expect(await subscriptionLineOf(node.pub, node.sub)).toMatch(/ psub=[1-9]/);
    });
  }
});

test('an emit on one node and one through the activities emitter reach a client on the other node', async () => {
  const room = rooms.device(randomUUID());
  const client = await connect(nodes[1] as Node, room);
  const received: DeviceStatusEvent[] = [];
  client.on('device:status', (e: DeviceStatusEvent) => received.push(e));
  const emit = createRoomEmitter(emitterRedis);
  // The adapters' subscriptions go live asynchronously (DESIGN §7): probe until one arrives.
  await eventually(async () => {
    (nodes[0] as Node).io.to(room).emit('device:status', { deviceId: 'probe', status: 'offline', lastSeen: null });
    await new Promise((r) => setTimeout(r, 50));
    expect(received.length).toBeGreaterThan(0);
  });
  received.length = 0;

  (nodes[0] as Node).io.to(room).emit('device:status', { deviceId: 'from-node-a', status: 'online', lastSeen: null });
  await emit([room], 'device:status', { deviceId: 'from-emitter', status: 'online', lastSeen: null });
  await eventually(() => expect(received.map((e) => e.deviceId).sort()).toEqual(['from-emitter', 'from-node-a']));
});

test('a node finds and disconnects a socket held by the other node (adapter requests count servers on every master)', async () => {
  const room = rooms.session(randomUUID());
  const client = await connect(nodes[1] as Node, room);
  const closed = new Promise<string>((resolve) => client.once('disconnect', resolve));
  await eventually(async () => expect(await (nodes[0] as Node).io.in(room).fetchSockets()).toHaveLength(1));
  (nodes[0] as Node).io.in(room).disconnectSockets(true);
  expect(await closed).toBe('io server disconnect');
});
