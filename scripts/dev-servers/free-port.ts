import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago: bind port 0, read it, release it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port bound'))));
    });
  });
}

const PORT_TAKEN = /address already in use/i;

/**
 * Starts a server on a free port, and on another when the first was taken between the pick and
 * the server's bind (another server starting beside it, or an outgoing connection's ephemeral
 * port: the server fails with "address already in use", which its boot error carries from the
 * log). The same holds for ports a server picks itself (the Temporal CLI's HTTP port). With
 * `fixedPort` (a restart on the same address) it starts there, once.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, fixedPort?: number, attempts = 3): Promise<T> {
  if (fixedPort) return start(fixedPort);
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (e) {
      if (attempt >= attempts || !(e instanceof Error && PORT_TAKEN.test(e.message))) throw e;
    }
  }
}
