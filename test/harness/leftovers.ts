import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUNS_DIR, TEMP_DIR_PREFIX } from './state';

interface RecordedProcess {
  pid: number;
  identity: string;
}

interface RunRecord {
  owner: RecordedProcess;
  dir: string;
  servers: RecordedProcess[];
}

/** Start time and command line of a live process (Linux /proc), so a reused pid is never mistaken for ours. */
function processIdentity(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return `${startTime} ${cmdline}`;
  } catch {
    return null;
  }
}

function recorded(pid: number): RecordedProcess {
  return { pid, identity: processIdentity(pid) ?? '' };
}

const runFile = (ownerPid: number): string => join(RUNS_DIR, `run-${ownerPid}.json`);

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

async function reap(file: string): Promise<void> {
  const run = JSON.parse(await readFile(file, 'utf8')) as RunRecord;
  if (processIdentity(run.owner.pid) === run.owner.identity) return;
  for (const server of run.servers) {
    if (server.identity && processIdentity(server.pid) === server.identity) killGroup(server.pid);
  }
  if (run.dir.startsWith(join(tmpdir(), TEMP_DIR_PREFIX))) await rm(run.dir, { recursive: true, force: true });
  await rm(file, { force: true });
}

/** Kills the servers of earlier jest runs whose jest process is gone; runs still alive are left alone. */
export async function reapCrashedRuns(): Promise<void> {
  const files = (await readdir(RUNS_DIR).catch(() => [])).filter((f) => /^run-\d+\.json$/.test(f));
  const results = await Promise.allSettled(files.map((f) => reap(join(RUNS_DIR, f))));
  results.forEach((result, i) => {
    if (result.status === 'rejected') process.stderr.write(`cannot clean up after ${files[i]}: ${String(result.reason)}\n`);
  });
}

export async function recordRun(dir: string, serverPids: number[]): Promise<void> {
  const run: RunRecord = { owner: recorded(process.pid), dir, servers: serverPids.map(recorded) };
  await mkdir(RUNS_DIR, { recursive: true });
  const partial = `${runFile(process.pid)}.partial`;
  await writeFile(partial, JSON.stringify(run, null, 2));
  await rename(partial, runFile(process.pid));
}

export async function forgetRun(): Promise<void> {
  await rm(runFile(process.pid), { force: true });
}
