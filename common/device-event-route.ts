import { rooms } from './contracts';

/** The key prefix of the Socket.IO Redis adapter's channels and of the emitter that publishes to them (their default). */
export const SOCKET_IO_KEY = 'socket.io';

/**
 * Where a Lua script that changes a device publishes its event (store/lua/lib/device-events.lua),
 * as three ARGV: the channel of a broadcast to several rooms of the namespace `/`, and the prefixes
 * of a project's and a device's room names (common/contracts.ts `rooms`).
 */
export const deviceEventRoute: readonly string[] = [`${SOCKET_IO_KEY}#/#`, rooms.project(''), rooms.device('')];
