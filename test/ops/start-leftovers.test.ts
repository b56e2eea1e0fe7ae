import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createLogger } from '../../common/logger';
import { startPostgres } from '../../scripts/dev-servers';
import { canDieWithParent } from '../../scripts/dev-servers/die-with-parent';
import type { ChildrenRecord } from '../../scripts/start/children';
import { clusterDir } from '../../scripts/start/cluster-dir';
import { stopLeftovers } from '../../scripts/start/leftovers';
import { bootId, isRunning, startTime } from '../../scripts/start/proc';
import { TEMP_DIR_PREFIX } from '../harness/state';
import { eventually } from '../helpers/wait';

/**
 * What `npm start` does about the servers an earlier run left (scripts/start/leftovers.ts) and
 * how it keeps them from being left (scripts/dev-servers/die-with-parent.ts), on stand-ins:
 * `sleep` for a recorded server, a node whose command line reads like a Temporal dev server, and
 * one real PostgreSQL cluster.
 */

const ROOT = resolve(__dirname, '..', '..');
const logger = createLogger('silent', 'test');
let dir = '';
let dataDir = '';
const started: ChildProcess[] = [];

/** A long sleeper leading its own process group, as spawnServer starts servers. */
async function sleeper(argv: string[] = ['sleep', '300']): Promise<number> {
  const [command = 'sleep', ...args] = argv;
  const child = spawn(command, args, { detached: true, stdio: 'ignore' });
  started.push(child);
  await new Promise((ready) => child.once('spawn', ready));
  return child.pid as number;
}

/** A pid that ran a moment ago and runs no more. */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await new Promise((done) => child.once('exit', done));
  return child.pid as number;
}

async function record(owner: number, children: { name: string; pid: number; startTime?: string }[]): Promise<void> {
  const file: ChildrenRecord = {
    bootId: bootId(),
    owner: { name: 'npm start', pid: owner, startTime: startTime(owner) ?? '1' },
    children: children.map((c) => ({ name: c.name, pid: c.pid, startTime: c.startTime ?? startTime(c.pid) ?? '' })),
  };
  await writeFile(join(dataDir, 'children.json'), JSON.stringify(file));
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), `${TEMP_DIR_PREFIX}leftovers-`));
  dataDir = join(dir, 'data');
  await mkdir(dataDir);
});

afterEach(async () => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('npm start, before it starts anything', () => {
  it('stops the servers a dead run recorded, never a process that only has the pid of one', async () => {
    const left = await sleeper();
    const stranger = await sleeper();
    await record(await deadPid(), [
      { name: 'redis-server', pid: left },
      { name: 'mosquitto', pid: stranger, startTime: '1' },
    ]);
    await stopLeftovers(dataDir, logger);
    expect(isRunning(left)).toBe(false);
    expect(isRunning(stranger)).toBe(true);
  });

  it('refuses while the run that recorded them is alive', async () => {
    const server = await sleeper();
    await record(process.pid, [{ name: 'redis-server', pid: server }]);
    await expect(stopLeftovers(dataDir, logger)).rejects.toThrow(/already runs/);
    expect(isRunning(server)).toBe(true);
  });

  it('stops a Temporal dev server on data/temporal.db that no record names', async () => {
    const temporal = await sleeper([
      process.execPath,
      '-e',
      'setInterval(() => {}, 1000)',
      'server',
      'start-dev',
      '--db-filename',
      join(dataDir, 'temporal.db'),
    ]);
    const elsewhere = await sleeper([
      process.execPath,
      '-e',
      'setInterval(() => {}, 1000)',
      'server',
      'start-dev',
      '--db-filename',
      join(dir, 'temporal.db'),
    ]);
    await stopLeftovers(dataDir, logger);
    expect(isRunning(temporal)).toBe(false);
    expect(isRunning(elsewhere)).toBe(true);
  });

  it('removes a postmaster.pid whose pid runs no server of the cluster, and leaves that process alone', async () => {
    const stranger = await sleeper();
    await mkdir(join(dataDir, 'pg'));
    await writeFile(join(dataDir, 'pg', 'postmaster.pid'), `${stranger}\n${join(dataDir, 'pg')}\n`);
    await stopLeftovers(dataDir, logger);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    expect(isRunning(stranger)).toBe(true);
  });

  it('stops the PostgreSQL server left on data/pg (as root, in ~postgres/dds/...) with pg_ctl', async () => {
    const cluster = clusterDir(dataDir);
    try {
      const postgres = await startPostgres({ dir: dirname(cluster.dir), dataDir: cluster.dir });
      await stopLeftovers(dataDir, logger);
      expect(isRunning(postgres.pid)).toBe(false);
      expect(existsSync(join(cluster.dir, 'postmaster.pid'))).toBe(false);
    } finally {
      if (cluster.linked && basename(dirname(dirname(cluster.dir))) === 'dds')
        await rm(dirname(cluster.dir), { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a server spawned with an owner', () => {
  (canDieWithParent() ? it : it.skip)('gets SIGTERM when its spawner is SIGKILLed', async () => {
    const script = `require('./scripts/dev-servers/server-process').spawnServer('sleeper', 'sleep', ['300'], ${JSON.stringify(join(dir, 'sleep.log'))}, { spawned: (name, pid) => console.log(pid) })`;
    const spawner = spawn(
      process.execPath,
      ['-r', join(ROOT, 'test/twin/support/ts-register.js'), '-e', `${script}; setInterval(() => {}, 1000)`],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    started.push(spawner);
    const pid = await new Promise<number>((done) => spawner.stdout?.once('data', (d: Buffer) => done(Number(d.toString().trim()))));
    expect(isRunning(pid)).toBe(true);
    spawner.kill('SIGKILL');
    await eventually(() => expect(isRunning(pid)).toBe(false), 5000);
  });
});
