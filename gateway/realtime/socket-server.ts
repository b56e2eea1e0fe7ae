import type { Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { createAdapter } from '@socket.io/redis-adapter';
import { SOCKET_IO_KEY } from '../../common/device-event-route';
import { Server } from 'socket.io';
import { corkPerLoopIteration } from '../../common/cork';
import { z } from 'zod';
import { rooms, type ClientToServerEvents, type ServerToClientEvents } from '../../common/contracts';
import { AppError } from '../../common/errors';
import { pinValueText } from '../schemas/pin-value';
import type { Logger } from '../../common/logger';
import { type Redis, subscriptionLineOf } from '../../common/redis';
import type { Stores } from '../../store';
import { deviceAccess, projectAccess } from '../access/project-access';
import type { Ingest } from '../ingest/ingest';
import { handleEvent } from './handle-event';
import { projectWatches } from './project-watches';
import { socketRevocations } from './revocations';
import { closeAtSessionExpiry } from './session-expiry';
import type { DdsSocket, SocketData } from './socket-types';

const authSchema = z.object({ token: z.string().min(1) });
const target = z.union([z.object({ projectId: z.uuid() }), z.object({ deviceId: z.uuid() })]);
const pinWrite = z.object({
  deviceId: z.uuid(),
  pin: z.union([z.string().min(1).max(8), z.number().int()]),
  value: pinValueText,
  /** docs/commands.md: a command still queued this long is never sent. */
  ttlSeconds: z
    .int()
    .min(1)
    .max(30 * 86_400)
    .optional(),
});

export interface SocketServerDeps {
  httpServer: HttpServer;
  /** Publishes the adapter's messages; a normal connection. */
  pub: Redis;
  /** The adapter's subscriber connection (subscriber mode only). */
  sub: Redis;
  stores: Stores;
  ingest: Ingest;
  logger: Logger;
}

/** Socket.IO on the gateway (DESIGN §7), spread across nodes by the classic Redis adapter. */
export function createSocketServer(deps: SocketServerDeps) {
  const { stores, ingest, logger } = deps;
  const io = new Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>(deps.httpServer, {
    path: '/socket.io',
    adapter: createAdapter(deps.pub, deps.sub, { key: SOCKET_IO_KEY }),
  });
  // A client's WebSocket frames of one event-loop iteration leave in one socket write (common/cork.ts).
  deps.httpServer.on('upgrade', (_req: unknown, socket: Duplex) => corkPerLoopIteration(socket));

  io.use(async (socket, next) => {
    const auth = authSchema.safeParse(socket.handshake.auth);
    const session = auth.success ? await stores.sessions.resolve(auth.data.token).catch(() => null) : null;
    if (!session) return next(new Error('UNAUTHORIZED'));
    socket.data.userId = session.userId;
    socket.data.sessionId = session.id;
    socket.data.sessionExpiresAt = session.expiresAt;
    next();
  });

  /** The room a target names, once the caller may view it, its project, and the devices whose events it gets. */
  async function targetOf(
    socket: DdsSocket,
    payload: unknown,
  ): Promise<{ room: string; projectId: string; deviceIds: () => Promise<string[]> }> {
    const parsed = target.safeParse(payload);
    if (!parsed.success) throw new AppError('VALIDATION_ERROR', 'Send {projectId} or {deviceId}');
    if ('projectId' in parsed.data) {
      const { projectId } = parsed.data;
      await projectAccess(stores, socket.data.userId, projectId, 'viewer');
      return { room: rooms.project(projectId), projectId, deviceIds: () => stores.sync.deviceIdsOf(projectId) };
    }
    const { deviceId } = parsed.data;
    const { device } = await deviceAccess(stores, socket.data.userId, deviceId, 'viewer');
    return { room: rooms.device(deviceId), projectId: device.projectId, deviceIds: async () => [deviceId] };
  }

  async function pinWriteOf(socket: DdsSocket, payload: unknown): Promise<{ delivered: boolean; commandId: string | null }> {
    const parsed = pinWrite.safeParse(payload);
    if (!parsed.success) throw new AppError('VALIDATION_ERROR', 'Send {deviceId, pin, value, ttlSeconds?}');
    await deviceAccess(stores, socket.data.userId, parsed.data.deviceId, 'editor');
    const result = await ingest({ ...parsed.data, origin: 'app' });
    if (!result.ok) throw new AppError(result.code);
    return { delivered: result.delivered, commandId: result.commandId };
  }

  const watches = projectWatches();
  io.on('connection', (socket: DdsSocket) => {
    void socket.join([rooms.user(socket.data.userId), rooms.session(socket.data.sessionId)]);
    closeAtSessionExpiry(socket);
    // A logout between the handshake's check and the join above found no socket to disconnect.
    stores.sessions
      .isLive(socket.data.sessionId)
      .then((live) => {
        if (!live) socket.disconnect(true);
      })
      .catch((err: unknown) => logger.warn({ err }, 'session not rechecked after connect'));
    const on = handleEvent(socket, logger);
    // docs/realtime.md: the ack carries each device's current sequence number, read after the join
    // (an event after it is either counted in it or arrives with a higher one).
    // Its project's watch room too: the device events of a project reach only the nodes whose sockets watch it.
    on('subscribe', async (payload) => {
      const { room, projectId, deviceIds } = await targetOf(socket, payload);
      watches.add(socket, projectId, room);
      await socket.join([room, rooms.watch(projectId)]);
      return { seq: await stores.sync.seqs(await deviceIds()) };
    });
    on('unsubscribe', async (payload) => {
      const { room, projectId } = await targetOf(socket, payload);
      // The record and the rooms change together, with no await between: a subscribe handled
      // meanwhile would otherwise re-join a room this then takes its watch room away from.
      const leaving = watches.remove(socket, projectId, room) ? [room, rooms.watch(projectId)] : [room];
      await Promise.all(leaving.map((r) => socket.leave(r)));
      return {};
    });
    on('resync', async (payload) => {
      const { deviceIds } = await targetOf(socket, payload);
      return { devices: await stores.sync.snapshots(await deviceIds()) };
    });
    on('pin:write', (payload) => pinWriteOf(socket, payload), ['VALUE_TOO_LARGE', 'PIN_LOCKED']);
  });

  return {
    /** The Socket.IO server: which events a socket listens to, and (across nodes, through the adapter) its sockets. */
    io,
    /** Takes rooms and sessions away from sockets on every node. */
    revocations: socketRevocations(io, deps.pub),
    /** Resolves when the adapter's Redis subscriptions are active (DESIGN §7: until then events are missed). */
    async subscribed(): Promise<void> {
      const line = await subscriptionLineOf(deps.pub, deps.sub);
      const count = (field: string) => Number(new RegExp(` ${field}=(\\d+)`).exec(line ?? '')?.[1] ?? 0);
      if (!line || count('psub') < 1 || count('sub') < 1) throw new Error('Socket.IO adapter not subscribed yet');
    },
    /**
     * Drops this node's sockets by closing their transports, the HTTP server itself is closed by
     * the gateway. Not with a Socket.IO disconnect: a client does not retry a disconnect the server
     * chose (`io server disconnect`, which docs/realtime.md reserves for an ended session), whereas
     * after a closed transport it reconnects by itself, through the balancer to a node still up.
     */
    close(): void {
      io.engine.close();
    },
  };
}

export type SocketServer = ReturnType<typeof createSocketServer>;
