import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { findExecutable, isExecutable } from './find-executable';
import { onFreePort } from './free-port';
import { bootServer, poll, spawnServer, type ServerOwner } from './server-process';

const run = promisify(execFile);

export interface PostgresServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** A fresh `pg-*` cluster is made under it (tests). */
  dir: string;
  /** A persistent cluster in exactly this directory, initdb'd only the first time (`npm start`). */
  dataDir?: string;
  /** Test clusters skip fsync: fast, and a crash loses nothing anyone keeps. */
  durable?: boolean;
  /** This port rather than a free one (a test restarting its own server on the same address). */
  port?: number;
  /** Tie the server to this process's life (spawnServer). */
  owner?: ServerOwner;
}

/** Debian's own binaries first (/usr/lib/postgresql/<newest>/bin), then PATH. */
function postgresBinary(name: string): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const debian = versions.map((v) => join(root, v, 'bin', name)).find(isExecutable);
  const found = debian ?? findExecutable(name);
  if (!found) throw new Error(`cannot find ${name} (PostgreSQL); run \`npm run setup\``);
  return found;
}

/** initdb and postgres refuse root: as root, run them as the `postgres` OS user. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** As root: the server user gets the data directory, and search (x) on the directories above it. */
function prepareDataDir(dataDir: string, parents: string[]): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() !== 0) return;
  for (const parent of parents) chmodSync(parent, statSync(parent).mode | 0o011);
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  chownSync(dataDir, id('-u'), id('-g'));
}

async function initCluster(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const [command, args] = asServerUser(postgresBinary('initdb'), [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '--encoding=UTF8',
    '--no-locale',
    '--no-sync',
  ]);
  await run(command, args);
}

async function connects(url: string): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A PostgreSQL cluster on 127.0.0.1 and a free port (never the machine's 5432), trust auth for
 * local connections only, no Unix socket. Runs `postgres` in the foreground so its process group
 * is ours; stop() is `pg_ctl stop -m fast` (sessions cut, clean checkpoint).
 */
export async function startPostgres(options: PostgresOptions): Promise<PostgresServer> {
  const clusterDir = options.dataDir ? null : await mkdtemp(join(options.dir, 'pg-'));
  const dataDir = options.dataDir ?? join(clusterDir as string, 'data');
  prepareDataDir(dataDir, clusterDir ? [options.dir, clusterDir] : [options.dir]);
  await initCluster(dataDir);
  return onFreePort((port) => startPostgresOn(options, dataDir, port), options.port);
}

async function startPostgresOn(options: PostgresOptions, dataDir: string, port: number): Promise<PostgresServer> {
  const settings = [
    `listen_addresses=127.0.0.1`,
    `port=${port}`,
    `unix_socket_directories=`,
    `max_connections=100`,
    ...(options.durable ? [] : ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off']),
  ];
  const [command, args] = asServerUser(postgresBinary('postgres'), ['-D', dataDir, ...settings.flatMap((s) => ['-c', s])]);
  const server = await spawnServer('postgres', command, args, join(dataDir, '..', 'postgres.log'), options.owner);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await bootServer(server, () => poll(server, () => connects(url), 30_000));
  return {
    url,
    pid: server.pid,
    async stop() {
      await stopCluster(dataDir).catch(() => undefined);
      await server.stop();
    },
  };
}

/**
 * `pg_ctl stop -m fast` on the cluster in `dataDir` (sessions cut, clean checkpoint), as the
 * server's user; resolves once the server and its backends are gone, rejects after 10 s.
 */
export async function stopCluster(dataDir: string): Promise<void> {
  const [ctl, ctlArgs] = asServerUser(postgresBinary('pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '10']);
  await run(ctl, ctlArgs);
}
