import type { Socket } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '../../common/contracts';

export interface SocketData {
  userId: string;
}

export type DdsSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
