import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../common/logger';
import { readChildren, stillRunning } from './children';
import { stopLeftoverCluster } from './postgres-leftover';
import { commandLine, hasProc, runningPids } from './proc';
import { stopProcess } from './stop-process';

/** Temporal dev servers serving `dbFile`, found by their command line (also those of runs that kept no record). */
function temporalServersOn(dbFile: string): number[] {
  return runningPids().filter((pid) => {
    const argv = commandLine(pid);
    const at = argv.indexOf('--db-filename');
    return at >= 0 && argv[at + 1] === dbFile && argv.includes('start-dev');
  });
}

async function stop(pid: number, what: string, logger: Logger): Promise<void> {
  const ended = await stopProcess(pid);
  logger.warn(`stopped ${what} left running by an earlier run (pid ${pid}, ${ended})`);
}

/**
 * Before `npm start` starts anything: stops what an earlier run of this data directory left
 * running when it died without stopping its servers (SIGKILL, OOM), and logs each one. Refuses
 * while that earlier run itself is alive. Finds: the PostgreSQL server of data/pg (postmaster.pid),
 * the servers data/children.json records (each verified by its start time before it is
 * signalled), and Temporal dev servers on data/temporal.db (by command line). Needs Linux's
 * /proc: elsewhere it only says so, as it could not tell a live server from a stale pid file.
 */
export async function stopLeftovers(dataDir: string, logger: Logger): Promise<void> {
  if (!hasProc()) {
    logger.warn('no /proc here: servers an earlier npm start may have left running are not looked for');
    return;
  }
  const record = readChildren(dataDir);
  if (record && stillRunning(record, record.owner)) {
    throw new Error(`npm start already runs on ${dataDir} (pid ${record.owner.pid}); stop it first`);
  }
  const pg = join(dataDir, 'pg');
  if (existsSync(pg)) await stopLeftoverCluster(realpathSync(pg), logger);
  const children = record ? record.children.filter((child) => stillRunning(record, child)) : [];
  await Promise.all(children.map((child) => stop(child.pid, child.name, logger)));
  const dbFile = join(dataDir, 'temporal.db');
  await Promise.all(temporalServersOn(dbFile).map((pid) => stop(pid, `the Temporal dev server on ${dbFile}`, logger)));
}
