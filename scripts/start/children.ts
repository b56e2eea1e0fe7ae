import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ServerOwner } from '../dev-servers/server-process';
import { bootId, isRunning, startTime } from './proc';

const recordedProcess = z.object({ name: z.string(), pid: z.number().int().positive(), startTime: z.string() });

const childrenRecord = z.object({ bootId: z.string(), owner: recordedProcess, children: z.array(recordedProcess) });

export type RecordedProcess = z.infer<typeof recordedProcess>;
export type ChildrenRecord = z.infer<typeof childrenRecord>;

const file = (dataDir: string): string => join(dataDir, 'children.json');

/** What an earlier `npm start` of this data directory recorded; null when there is no (readable) record. */
export function readChildren(dataDir: string): ChildrenRecord | null {
  try {
    const parsed = childrenRecord.safeParse(JSON.parse(readFileSync(file(dataDir), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** True when that very process still runs: same pid, boot and start time, so a reused pid is never taken for it. */
export function stillRunning(record: ChildrenRecord, child: RecordedProcess): boolean {
  return record.bootId === bootId() && isRunning(child.pid) && startTime(child.pid) === child.startTime;
}

/**
 * Records this process and every server it spawns in data/children.json, each as it is spawned
 * (before it is ready), so the next `npm start` finds them after a crash (leftovers.ts).
 * `clear` removes the record once the servers are stopped.
 */
export function recordChildren(dataDir: string): ServerOwner & { clear(): void } {
  const recorded = (name: string, pid: number): RecordedProcess => ({ name, pid, startTime: startTime(pid) ?? '' });
  const record: ChildrenRecord = { bootId: bootId(), owner: recorded('npm start', process.pid), children: [] };
  const write = (): void => {
    writeFileSync(`${file(dataDir)}.partial`, `${JSON.stringify(record, null, 2)}\n`);
    renameSync(`${file(dataDir)}.partial`, file(dataDir));
  };
  write();
  return {
    spawned(name, pid) {
      record.children.push(recorded(name, pid));
      write();
    },
    clear: () => rmSync(file(dataDir), { force: true }),
  };
}
