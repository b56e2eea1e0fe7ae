import { execFileSync } from 'node:child_process';
import { findExecutable } from './find-executable';

let setpriv: string | null | undefined;

/** util-linux's setpriv when it has --pdeathsig (2.33 and later); null elsewhere (macOS, busybox). */
function findSetpriv(): string | null {
  const found = findExecutable('setpriv');
  if (!found) return null;
  try {
    return execFileSync(found, ['--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes('--pdeathsig')
      ? found
      : null;
  } catch {
    return null;
  }
}

/** True when servers can be tied to this process's life (Linux with util-linux's setpriv). */
export function canDieWithParent(): boolean {
  if (setpriv === undefined) setpriv = findSetpriv();
  return setpriv !== null;
}

/**
 * The command line that runs `command` with the kernel's parent-death signal set (Linux
 * PR_SET_PDEATHSIG, which Node cannot set on a child): `setpriv --pdeathsig TERM -- command`, so
 * the server gets SIGTERM when the process that spawned it dies, even by SIGKILL. Unchanged where
 * setpriv is missing: the next `npm start` stops what is left (scripts/start/leftovers.ts).
 */
export function dieWithParent(command: string, args: string[]): [string, string[]] {
  return canDieWithParent() ? [setpriv as string, ['--pdeathsig', 'TERM', '--', command, ...args]] : [command, args];
}
