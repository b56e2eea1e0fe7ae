import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/** The machine's busy and total CPU ticks so far, all cores, from /proc/stat's first line. */
function machineTicks(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((sum, n) => sum + n, 0);
  // idle and iowait are fields 4 and 5.
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * Samples the whole machine's CPU now; `since()` gives how busy it was since then in percent of
 * one core (at most cores × 100), every process counted, ours and any other work on the machine.
 */
export function machineCpuMeter() {
  const before = machineTicks();
  return {
    since(): number {
      const now = machineTicks();
      const total = now.total - before.total;
      return total > 0 ? ((now.busy - before.busy) / total) * availableParallelism() * 100 : NaN;
    },
  };
}
