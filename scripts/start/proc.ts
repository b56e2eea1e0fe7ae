/**
 * What Linux's /proc says about a process; null (or empty) where there is no such process, it
 * cannot be read, or there is no /proc (macOS).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** False where there is no /proc to look at (macOS): then nothing here can tell a process apart. */
export function hasProc(): boolean {
  return existsSync('/proc/self/stat');
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Running: it exists and is not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z';
}

/** When it started, in clock ticks since boot: with the boot id, one process for ever (a reused pid starts later). */
export function startTime(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

export function processGroup(pid: number): number | null {
  const group = statFields(pid)?.[2];
  return group === undefined ? null : Number(group);
}

export function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/** The executable's name (/proc/<pid>/comm), which a process that rewrites its command line for `ps` keeps. */
export function programName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/** Its working directory (PostgreSQL's processes run in their data directory, redis-server in its --dir). */
export function workingDir(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** Every running process but this one. */
export function runningPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid && isRunning(pid));
  } catch {
    return [];
  }
}
