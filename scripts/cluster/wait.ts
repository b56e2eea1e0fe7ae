import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** The directory holding package.json above this file: the same from dist/scripts/cluster (npm run cluster) and scripts/cluster (jest). */
function findRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

export const PROJECT_ROOT = findRoot(__dirname);

/** Something that can have exited while it is waited for. */
interface Exits {
  label: string;
  exitStatus(): string | null;
  logTail(lines?: number): Promise<string>;
}

/** Retries `attempt` every `everyMs` until it resolves; throws after `timeoutMs` (or at once when `process` exited) with the last error. */
export async function waitFor<T>(what: string, timeoutMs: number, attempt: () => Promise<T>, process?: Exits, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no attempt made';
  for (;;) {
    const status = process?.exitStatus();
    if (process && status) throw new Error(`${process.label} exited (${status}) while waiting for ${what}:\n${await process.logTail()}`);
    try {
      return await attempt();
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    if (Date.now() >= deadline) {
      const tail = process ? `\n--- ${process.label} ---\n${await process.logTail()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${last})${tail}`);
    }
    await delay(everyMs);
  }
}

export const sleep = (ms: number): Promise<void> => delay(ms);
