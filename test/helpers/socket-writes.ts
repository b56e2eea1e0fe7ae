import type { Socket } from 'node:net';

const WRITE_CALLS = ['writev', 'writeUtf8String', 'writeBuffer', 'writeLatin1String', 'writeAsciiString'] as const;
type Handle = Record<(typeof WRITE_CALLS)[number], (...args: unknown[]) => unknown>;

/** Counts the write calls made on a TCP socket from now on, at its handle, where each write call the process makes passes. */
export function countSocketWrites(socket: Socket): () => number {
  const handle = (socket as unknown as { _handle: Handle })._handle;
  let calls = 0;
  for (const name of WRITE_CALLS) {
    const original = handle[name].bind(handle);
    handle[name] = (...args: unknown[]) => {
      calls += 1;
      return original(...args);
    };
  }
  return () => calls;
}
