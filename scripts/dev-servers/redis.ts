import { mkdtemp } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { freePort } from './free-port';
import { bootServer, poll, spawnServer } from './server-process';

export interface RedisServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

function ping(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(1000, () => socket.destroy(new Error('PING timed out')));
    socket.once('error', reject);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (reply) => {
      socket.destroy();
      const text = reply.toString().trim();
      if (text === '+PONG') resolve();
      else reject(new Error(`PING answered ${text}`));
    });
  });
}

export interface RedisOptions {
  dir: string;
  /** Listen here instead of on a free port (a restart on the same address). */
  port?: number;
  /** Keep the data in this directory with an append-only file, so a restart finds it again. */
  dataDir?: string;
}

/** A throw-away redis-server on a free port: no RDB snapshots, and no AOF unless `dataDir` is given. */
export async function startRedis(options: RedisOptions): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const workDir = options.dataDir ?? (await mkdtemp(join(options.dir, 'redis-')));
  const appendOnly = options.dataDir ? 'yes' : 'no';
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', appendOnly, '--dir', workDir];
  const server = await spawnServer('redis-server', 'redis-server', args, join(workDir, 'redis.log'));
  await bootServer(server, () => poll(server, () => ping(port), 10_000));
  return { url: `redis://127.0.0.1:${port}`, pid: server.pid, stop: () => server.stop() };
}
