/**
 * One harness run at a time per machine (its namespaces have fixed names): a record of the
 * running harness in /tmp, checked at start. A record whose process is gone is a run that was
 * killed: its namespaces, links, processes and directory are removed before anything starts.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootId, startTime } from '../start/proc';
import { removeLeftovers } from './net';

const BASE = join(tmpdir(), 'dds-cluster');
const RECORD = join(BASE, 'run.json');

interface RunRecord {
  pid: number;
  startTime: string | null;
  bootId: string;
  dir: string;
}

function read(): RunRecord | null {
  try {
    return JSON.parse(readFileSync(RECORD, 'utf8')) as RunRecord;
  } catch {
    return null;
  }
}

function alive(record: RunRecord): boolean {
  return record.bootId === bootId() && record.startTime !== null && startTime(record.pid) === record.startTime;
}

/**
 * Refuses while another run is alive; otherwise removes what earlier runs left (namespaces with
 * their processes, bridges, veths, directories), records this run and returns its directory.
 */
export async function claimRun(say: (line: string) => void): Promise<string> {
  const earlier = read();
  if (earlier && earlier.pid !== process.pid && alive(earlier)) {
    throw new Error(`another cluster run is active (pid ${earlier.pid}, ${earlier.dir}); stop it first`);
  }
  const removed = await removeLeftovers();
  if (removed.length) say(`removed what an earlier run left: ${removed.join(', ')}`);
  if (existsSync(BASE)) {
    rmSync(BASE, { recursive: true, force: true });
  }
  const dir = join(BASE, `run-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(join(dir, 'logs'), { recursive: true, mode: 0o755 });
  writeFileSync(RECORD, JSON.stringify({ pid: process.pid, startTime: startTime(process.pid), bootId: bootId(), dir } satisfies RunRecord));
  return dir;
}

/** After a clean stop: the network is gone; the directory (logs) stays until the next run. */
export async function releaseRun(): Promise<void> {
  await removeLeftovers();
  const record = read();
  if (record?.pid === process.pid) rmSync(RECORD, { force: true });
}
