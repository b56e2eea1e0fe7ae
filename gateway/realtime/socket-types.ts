import type { Socket } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '../../common/contracts';

export interface SocketData {
  userId: string;
  /** The id (token hash) of the session it connected with: it is disconnected when that ends. */
  sessionId: string;
  /** When that session expires (ISO 8601): the socket is disconnected then (session-expiry.ts). */
  sessionExpiresAt: string;
}

export type DdsSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
