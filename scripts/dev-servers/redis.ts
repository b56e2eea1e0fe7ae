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

/** A throw-away redis-server on a free port: no RDB snapshots, no AOF. */
export async function startRedis(options: { dir: string }): Promise<RedisServer> {
  const port = await freePort();
  const workDir = await mkdtemp(join(options.dir, 'redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', workDir];
  const server = await spawnServer('redis-server', 'redis-server', args, join(workDir, 'redis.log'));
  await bootServer(server, () => poll(server, () => ping(port), 10_000));
  return { url: `redis://127.0.0.1:${port}`, pid: server.pid, stop: () => server.stop() };
}
