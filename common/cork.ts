import type { Writable } from 'node:stream';

/**
 * A socket's writes held until the event loop's current iteration has run its callbacks (every
 * timer due, every I/O callback of the poll phase, with their promise jobs), then sent in one
 * write, in the check phase. Without it every Redis command, WebSocket frame and PUBACK is a
 * write call of its own: a third of a gateway's busy time at line rate (docs/benchmarks.md,
 * "Issue 14, sixth pass"). A write waits at most for the rest of the iteration's callbacks; order
 * is kept, as the socket buffers what it is given in order.
 *
 * Returns `hold(socket)`, called before each write: the first call of an iteration corks the
 * socket and schedules its uncork. One `hold` per connection (it remembers the socket it corked).
 */
export function holdWritesPerIteration(): (socket: Writable) => void {
  let held: Writable | null = null;
  return (socket) => {
    if (held === socket || !socket.writable) return;
    held = socket;
    socket.cork();
    setImmediate(() => {
      held = null;
      socket.uncork();
    });
  };
}

const patched = new WeakSet<Writable>();

/**
 * Makes every write of `socket` go through holdWritesPerIteration (a socket other code writes to
 * directly: WebSocket, MQTT). Patching a socket again changes nothing.
 */
export function corkPerLoopIteration(socket: Writable): void {
  if (patched.has(socket)) return;
  patched.add(socket);
  const hold = holdWritesPerIteration();
  const write = socket.write;
  socket.write = function holdingWrite(this: Writable, ...args: Parameters<Writable['write']>): boolean {
    hold(socket);
    return Reflect.apply(write, this, args) as boolean;
  } as Writable['write'];
}
