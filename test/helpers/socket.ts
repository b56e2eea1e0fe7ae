import { io, type Socket } from 'socket.io-client';
import type { ClientToServerEvents, ServerToClientEvents } from '../../common/contracts';

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A real Socket.IO client connected with an access token; resolves once connected. */
export function connectSocket(baseUrl: string, token: string): Promise<ClientSocket> {
  const socket: ClientSocket = io(baseUrl, { path: '/socket.io', auth: { token }, transports: ['websocket'], reconnection: false });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

/** Resolves with the first `event` payload that matches, or rejects after `ms`. */
export function nextEvent<E extends keyof ServerToClientEvents>(
  socket: ClientSocket,
  event: E,
  matches: (payload: Parameters<ServerToClientEvents[E]>[0]) => boolean = () => true,
  ms = 5000,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve, reject) => {
    const listener = (payload: Parameters<ServerToClientEvents[E]>[0]) => {
      if (!matches(payload)) return;
      clearTimeout(timer);
      socket.off(event, listener as never);
      resolve(payload);
    };
    const timer = setTimeout(() => {
      socket.off(event, listener as never);
      reject(new Error(`no ${String(event)} event within ${ms} ms`));
    }, ms);
    socket.on(event, listener as never);
  });
}

/** Emits with an acknowledgement and resolves with the ack. */
export function emitWithAck<T>(socket: ClientSocket, event: keyof ClientToServerEvents, payload: unknown): Promise<T> {
  return (socket.timeout(5000) as unknown as { emitWithAck(ev: string, p: unknown): Promise<T> }).emitWithAck(event, payload);
}

/** Collects every `event` payload from now on. */
export function collect<E extends keyof ServerToClientEvents>(socket: ClientSocket, event: E): Parameters<ServerToClientEvents[E]>[0][] {
  const seen: Parameters<ServerToClientEvents[E]>[0][] = [];
  socket.on(event, ((payload: Parameters<ServerToClientEvents[E]>[0]) => seen.push(payload)) as never);
  return seen;
}

/** A client connected with `token` and subscribed to `target` (`{projectId}` or `{deviceId}`); throws if the subscribe is refused. */
export async function subscribedSocket(
  baseUrl: string,
  token: string,
  target: { projectId: string } | { deviceId: string },
): Promise<ClientSocket> {
  const socket = await connectSocket(baseUrl, token);
  const ack = await emitWithAck<{ success: boolean }>(socket, 'subscribe', target);
  if (!ack.success) {
    socket.close();
    throw new Error(`subscribe refused: ${JSON.stringify(ack)}`);
  }
  return socket;
}
