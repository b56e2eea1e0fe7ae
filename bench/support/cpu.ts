import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/** Linux USER_HZ: /proc reports CPU time in these ticks (100 on every mainstream kernel). */
const TICKS_PER_S = 100;

/** CPU seconds (user + system, threads included) a live process has used so far; NaN when unreadable. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** CPU seconds of a live process and all its live descendants (e.g. PostgreSQL's postmaster and its backends). */
export function treeCpuSeconds(pid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i += 1) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree.reduce((sum, p) => sum + (Number.isNaN(cpuSeconds(p)) ? 0 : cpuSeconds(p)), 0);
}

/**
 * Processes whose children do their work: PostgreSQL's postmaster forks a backend per connection,
 * so its own CPU time alone reads 0 %.
 */
const COUNTED_WITH_CHILDREN = new Set(['postgres']);

/** Samples the CPU time of named processes now; `since()` gives each one's share of a core since then. */
export function cpuMeter(pids: Record<string, number>) {
  const startedAt = process.hrtime.bigint();
  const cpuOf = (name: string, pid: number): number => (COUNTED_WITH_CHILDREN.has(name) ? treeCpuSeconds(pid) : cpuSeconds(pid));
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuOf(name, pid)]));
  /** Each process's share of one core since the meter started, in percent. */
  const shares = (): Record<string, number> => {
    const wall = Number(process.hrtime.bigint() - startedAt) / 1e9;
    return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ((cpuOf(name, pid) - (before[name] ?? NaN)) / wall) * 100]));
  };
  return {
    shares,
    since(): string {
      return Object.entries(shares())
        .map(([name, share]) => `${name} ${Math.round(share)}%`)
        .join(', ');
    },
  };
}

/**
 * Waits until the processes together use less than `percent` of one core over `quietSeconds`
 * one-second windows in a row (e.g. the twins of freshly created devices have finished starting),
 * at most `capMs`. `trees` are counted with their descendants (PostgreSQL's backends). Resolves
 * with the seconds waited.
 */
export async function waitForQuiet(
  pids: readonly number[],
  percent = 15,
  capMs = 60_000,
  trees: readonly number[] = [],
  quietSeconds = 1,
): Promise<number> {
  const startedAt = Date.now();
  const total = (): number =>
    pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) + trees.reduce((sum, pid) => sum + treeCpuSeconds(pid), 0);
  let before = total();
  let quiet = 0;
  while (Date.now() - startedAt < capMs) {
    await delay(1000);
    const now = total();
    quiet = (now - before) * 100 < percent ? quiet + 1 : 0;
    if (quiet >= quietSeconds) break;
    before = now;
  }
  return (Date.now() - startedAt) / 1000;
}
