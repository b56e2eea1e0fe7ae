import { rooms } from './contracts';

/** The key prefix of the Socket.IO Redis adapter's channels and of the emitter that publishes to them (their default). */
export const SOCKET_IO_KEY = 'socket.io';

/**
 * Where a Lua script that changes a device publishes its event (store/lua/lib/device-events.lua),
 * as three ARGV: the prefix of the channel of the project's watch room in the namespace `/` (the
 * channel is it, the project id and `#`: the adapter decodes a message on a room's channel only
 * on a node with a socket in that room), and the prefixes of a project's and a device's room
 * names, the rooms the event is broadcast to (common/contracts.ts `rooms`).
 */
export const deviceEventRoute: readonly string[] = [`${SOCKET_IO_KEY}#/#${rooms.watch('')}`, rooms.project(''), rooms.device('')];
