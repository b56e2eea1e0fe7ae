import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { io, type Socket } from 'socket.io-client';
import type { Ack, ClientToServerEvents, ServerToClientEvents } from '../../../common/contracts';
import { deviceStatuses, recordPinValue } from './live-values';

export type DdsSocket = Socket<ServerToClientEvents, ClientToServerEvents>;
type Target = { projectId: string } | { deviceId: string };

interface SocketState {
  socket: DdsSocket;
  connected: boolean;
  /** Grows on every (re)connect: screens refetch what they show when it changes. */
  epoch: number;
  join(target: Target): () => void;
}

const SocketContext = createContext<SocketState | null>(null);

const targetKey = (t: Target) => ('projectId' in t ? `p:${t.projectId}` : `d:${t.deviceId}`);

/**
 * One Socket.IO connection per signed-in page. Rooms are reference-counted; on every connect
 * (the first and each reconnect, since the Redis adapter keeps no connection state) every room
 * is joined again and `epoch` grows so screens refetch latest values and statuses.
 */
export function SocketProvider({ token, children }: { token: string; children: ReactNode }) {
  const socket = useMemo<DdsSocket>(() => io({ path: '/socket.io', auth: { token }, transports: ['websocket'] }), [token]);
  const rooms = useRef(new Map<string, { target: Target; count: number }>());
  const [connected, setConnected] = useState(false);
  const [epoch, setEpoch] = useState(0);

  useEffect(() => {
    const onConnect = () => {
      for (const { target } of rooms.current.values()) socket.emit('subscribe', target);
      setConnected(true);
      setEpoch((e) => e + 1);
    };
    const onDisconnect = (reason: string) => {
      setConnected(false);
      // The client retries dropped transports itself, but not a disconnect the server chose.
      if (reason === 'io server disconnect') setTimeout(() => socket.connect(), 1000);
    };
    socket.on('connect', onConnect);
    socket.on('disconnect', onDisconnect);
    socket.on('pin:update', (e) => recordPinValue(e.deviceId, e.pin, { value: e.value, at: e.updatedAt }));
    socket.on('device:status', (e) => deviceStatuses.set(e.deviceId, { status: e.status, lastSeen: e.lastSeen }));
    return () => {
      socket.removeAllListeners();
      socket.close();
    };
  }, [socket]);

  const state = useMemo<SocketState>(
    () => ({
      socket,
      connected,
      epoch,
      join(target) {
        const key = targetKey(target);
        const entry = rooms.current.get(key);
        if (entry) entry.count++;
        else {
          rooms.current.set(key, { target, count: 1 });
          if (socket.connected) socket.emit('subscribe', target);
        }
        return () => {
          const current = rooms.current.get(key);
          if (!current) return;
          if (--current.count > 0) return;
          rooms.current.delete(key);
          if (socket.connected) socket.emit('unsubscribe', target);
        };
      },
    }),
    [socket, connected, epoch],
  );

  return <SocketContext.Provider value={state}>{children}</SocketContext.Provider>;
}

export function useSocket(): SocketState {
  const state = useContext(SocketContext);
  if (!state) throw new Error('useSocket outside SocketProvider');
  return state;
}

/** Joins a room while the calling component is mounted. */
export function useRoom(target: Target | null): void {
  const { join } = useSocket();
  const key = target ? targetKey(target) : null;
  const latest = useRef(target);
  latest.current = target;
  useEffect(() => (latest.current ? join(latest.current) : undefined), [key, join]);
}

/** Calls `handler` for each `event` while mounted. */
export function useSocketEvent<E extends keyof ServerToClientEvents>(event: E, handler: ServerToClientEvents[E]): void {
  const { socket } = useSocket();
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    const listener = ((...args: Parameters<ServerToClientEvents[E]>) =>
      (ref.current as (...a: Parameters<ServerToClientEvents[E]>) => void)(...args)) as never;
    socket.on(event, listener);
    return () => {
      socket.off(event, listener);
    };
  }, [socket, event]);
}

/** Writes a pin through `pin:write`; resolves with the server's ack (a timeout is an error ack). */
export function writePin(
  socket: DdsSocket,
  deviceId: string,
  pin: string,
  value: string,
): Promise<Ack<{ delivered: boolean; commandId: string | null }>> {
  return socket
    .timeout(5000)
    .emitWithAck('pin:write', { deviceId, pin, value })
    .catch(() => ({ success: false as const, error: { code: 'TIMEOUT', message: 'The server did not answer' } }));
}
