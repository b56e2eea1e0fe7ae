import { setTimeout as delay } from 'node:timers/promises';
import { isRunning, processGroup, runningPids } from './proc';

/** Polls `done` every 100 ms; false when it is still false after `timeoutMs`. */
export async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await delay(100);
  }
  return true;
}

function signal(target: number, sig: NodeJS.Signals): void {
  try {
    process.kill(target, sig);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/**
 * Stops a process an earlier run left: SIGTERM (and SIGCONT, should it be stopped) to its
 * process group when it leads one (servers are spawned detached), else to it alone; SIGKILL to
 * whatever still runs after `timeoutMs`. Resolves once nothing of it runs, saying how it ended.
 */
export async function stopProcess(pid: number, timeoutMs = 10_000): Promise<'terminated' | 'killed'> {
  const leadsGroup = processGroup(pid) === pid;
  const target = leadsGroup ? -pid : pid;
  const gone = (): boolean => (leadsGroup ? !runningPids().some((p) => processGroup(p) === pid) : !isRunning(pid));
  signal(target, 'SIGTERM');
  signal(target, 'SIGCONT');
  if (await until(gone, timeoutMs)) return 'terminated';
  signal(target, 'SIGKILL');
  if (await until(gone, 5000)) return 'killed';
  throw new Error(`pid ${pid} still runs after SIGKILL`);
}
