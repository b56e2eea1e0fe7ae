import { execFile } from 'node:child_process';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { onFreePort } from './free-port';
import { bootServer, poll, spawnServer, type ServerOwner, type ServerProcess } from './server-process';

export interface RedisServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** One PING over a plain socket: resolves on +PONG, rejects otherwise or after a second. */
export function redisPing(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
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
  /** Keep the data in this directory (made when missing) with an append-only file, so a restart finds it again. */
  dataDir?: string;
  /** Tie the server to this process's life (spawnServer). */
  owner?: ServerOwner;
}

/** A throw-away redis-server on a free port: no RDB snapshots, and no AOF unless `dataDir` is given. */
export async function startRedis(options: RedisOptions): Promise<RedisServer> {
  const workDir = options.dataDir ?? (await mkdtemp(join(options.dir, 'redis-')));
  await mkdir(workDir, { recursive: true, mode: 0o700 });
  return onFreePort((port) => startRedisOn(options, workDir, port), options.port);
}

async function startRedisOn(options: RedisOptions, workDir: string, port: number): Promise<RedisServer> {
  const appendOnly = options.dataDir ? 'yes' : 'no';
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', appendOnly, '--dir', workDir];
  const server = await spawnServer('redis-server', 'redis-server', args, join(workDir, 'redis.log'), options.owner);
  await bootServer(server, () => poll(server, () => redisPing('127.0.0.1', port), 10_000));
  return { url: `redis://127.0.0.1:${port}`, pid: server.pid, stop: () => server.stop() };
}

export interface RedisClusterServer {
  /** The seeds, `host:port` comma-separated: the value of REDIS_CLUSTER_NODES. */
  nodes: string;
  pids: number[];
  stop(): Promise<void>;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')}: ${err.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/**
 * A throw-away Redis Cluster of `masters` masters (no replicas) on free ports: each node a
 * redis-server with `--cluster-enabled yes` in a temp dir, joined by `redis-cli --cluster create`;
 * resolves once every node reports cluster_state:ok.
 */
export async function startRedisCluster(options: { dir: string; masters?: number }): Promise<RedisClusterServer> {
  const count = options.masters ?? 3;
  const workDir = await mkdtemp(join(options.dir, 'redis-cluster-'));
  const started: ServerProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(started.map((s) => s.stop()));
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = await onFreePort(async (port) => {
        const nodeDir = await mkdtemp(join(workDir, `node-${port}-`));
        const args = [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          nodeDir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(nodeDir, 'nodes.conf'),
          '--cluster-node-timeout',
          '5000',
        ];
        const node = await spawnServer('redis-server', 'redis-server', args, join(nodeDir, 'redis.log'));
        await bootServer(node, () => poll(node, () => redisPing('127.0.0.1', port), 10_000));
        ports.push(port);
        return node;
      });
      started.push(server);
    }
    const seeds = ports.map((p) => `127.0.0.1:${p}`);
    await run('redis-cli', ['--cluster', 'create', ...seeds, '--cluster-replicas', '0', '--cluster-yes']);
    const first = started[0] as ServerProcess;
    await poll(
      first,
      async () => {
        for (const port of ports) {
          const info = await run('redis-cli', ['-p', String(port), 'cluster', 'info']);
          if (!info.includes('cluster_state:ok')) throw new Error(`node ${port}: ${info.split('\n')[0] ?? ''}`);
        }
      },
      30_000,
    );
    return { nodes: seeds.join(','), pids: started.map((s) => s.pid), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
