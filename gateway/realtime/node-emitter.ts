import type { Server } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '../../common/contracts';
import type { EmitToRooms } from '../../activities/socket-events';
import type { SocketData } from './socket-types';

type SocketServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/**
 * The gateway's own events (ingest's `pin:update` and `command`): through this node's Socket.IO
 * server once it runs, so this node's clients get them at once, without a round trip through Redis
 * and a decode of the node's own message, while the Redis adapter publishes them on the same
 * connection and channel as `throughRedis` for the other nodes. Before the server is attached (the
 * MQTT bridge starts first) they go through `throughRedis`, which every node's adapter delivers.
 */
export function createNodeEmitter(throughRedis: EmitToRooms) {
  let server: SocketServer | null = null;
  const emit: EmitToRooms = async (to, event, ...args) => {
    if (!server) return throughRedis(to, event, ...args);
    (server.to(to).emit as (ev: string, ...a: unknown[]) => boolean)(event, ...args);
  };
  return {
    emit,
    attach(io: SocketServer): void {
      server = io;
    },
  };
}
