import type { Server } from 'socket.io';
import { rooms, type ClientToServerEvents, type ServerToClientEvents } from '../../common/contracts';
import type { Redis } from '../../common/redis';
import type { SocketData } from './socket-types';

/**
 * Takes rights away from open Socket.IO connections on every node (docs/architecture.md,
 * "Revocation"). Each socket sits in its user's and its session's room from the moment it connects,
 * so the Redis adapter can find it on whichever node holds it.
 */
export interface SocketRevocations {
  /** The user's sockets leave a project's room, its devices' rooms and its watch room. */
  leaveProject(userId: string, projectId: string, deviceIds: string[]): Promise<void>;
  /** The session's sockets are disconnected. */
  endSession(sessionId: string): Promise<void>;
}

/**
 * The adapter publishes each request on `pub` without waiting. A PING on that same connection
 * answers only after Redis has handed the request to every node's subscriber, so once a revocation
 * resolves, any event published after it (by any node) reaches each node behind it.
 */
export function socketRevocations(
  io: Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>,
  pub: Redis,
): SocketRevocations {
  const handedOver = async (): Promise<void> => {
    await pub.ping();
  };
  return {
    async leaveProject(userId, projectId, deviceIds) {
      io.in(rooms.user(userId)).socketsLeave([rooms.project(projectId), rooms.watch(projectId), ...deviceIds.map(rooms.device)]);
      await handedOver();
    },
    async endSession(sessionId) {
      io.in(rooms.session(sessionId)).disconnectSockets(true);
      await handedOver();
    },
  };
}
