import { Emitter } from '@socket.io/redis-emitter';
import type { ServerToClientEvents } from '../common/contracts';
import { SOCKET_IO_KEY } from '../common/device-event-route';
import { publishInOrder, type Redis } from '../common/redis';

/** Emits a Socket.IO event to rooms and resolves once Redis took it (so a failure fails the activity). */
export type EmitToRooms = <Ev extends keyof ServerToClientEvents>(
  rooms: string[],
  event: Ev,
  ...args: Parameters<ServerToClientEvents[Ev]>
) => Promise<void>;

/**
 * Socket.IO through @socket.io/redis-emitter with the key prefix of the gateway's classic Redis
 * adapter (`createAdapter`), which delivers it: a project's `notification`. A device's events do
 * not come this way: the script that makes the change publishes them
 * (store/lua/lib/device-events.lua). The emitter publishes fire-and-forget; the client handed to
 * it keeps the publish promises, so the caller can await them.
 */
export function createRoomEmitter(redis: Redis): EmitToRooms {
  let published: Promise<unknown>[] = [];
  const client = {
    publish(channel: string, message: string | Buffer): Promise<number> {
      const p = publishInOrder(redis, channel, message);
      published.push(p);
      return p;
    },
  };
  const emitter = new Emitter<ServerToClientEvents>(client, { key: SOCKET_IO_KEY });
  return async (rooms, event, ...args) => {
    published = [];
    // The emitter publishes synchronously inside emit(), so `published` holds exactly this emit's calls.
    (emitter.to(rooms).emit as (ev: string, ...a: unknown[]) => boolean)(event, ...args);
    const calls = published;
    published = [];
    await Promise.all(calls);
  };
}
