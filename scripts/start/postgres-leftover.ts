import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../common/logger';
import { stopCluster } from '../dev-servers/postgres';
import { isRunning, programName, runningPids, workingDir } from './proc';
import { stopProcess, until } from './stop-process';

/** PostgreSQL runs the postmaster and every backend in the cluster's data directory. */
function ofCluster(pid: number, clusterDir: string): boolean {
  return programName(pid) === 'postgres' && workingDir(pid) === clusterDir;
}

function clusterProcesses(clusterDir: string): number[] {
  return runningPids().filter((pid) => ofCluster(pid, clusterDir));
}

function postmasterPid(pidFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Stops the PostgreSQL server an earlier run left on the cluster in `clusterDir` (a real path):
 * `pg_ctl stop -m fast`, SIGTERM then SIGKILL to the postmaster should that fail; then waits for
 * every process of the cluster to end (backends outlive a killed postmaster a moment and keep its
 * shared memory). A postmaster.pid left behind (the server was killed, its pid may be reused) is
 * removed, as PostgreSQL refuses to start beside one whose pid runs.
 */
export async function stopLeftoverCluster(clusterDir: string, logger: Logger): Promise<void> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  const pid = postmasterPid(pidFile);
  if (pid === null) return;
  if (isRunning(pid) && ofCluster(pid, clusterDir)) {
    logger.warn(`stopping the PostgreSQL server (pid ${pid}) an earlier run left on ${clusterDir} (pg_ctl stop -m fast)`);
    await stopCluster(clusterDir).catch(async (err: unknown) => {
      logger.warn({ err }, `pg_ctl stop failed; signalling pid ${pid}`);
      await stopProcess(pid);
    });
  }
  if (!(await until(() => clusterProcesses(clusterDir).length === 0, 10_000))) {
    throw new Error(`processes of the PostgreSQL cluster in ${clusterDir} still run: ${clusterProcesses(clusterDir).join(', ')}`);
  }
  if (existsSync(pidFile)) {
    rmSync(pidFile);
    logger.warn(`removed a stale ${pidFile} (pid ${pid} runs no server of that cluster)`);
  }
}
