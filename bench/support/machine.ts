import { availableParallelism, loadavg } from 'node:os';

/** The machine's size and how busy it is now: other work on it skews every figure a bench prints. */
export function machineLine(): string {
  const [one, five] = loadavg();
  return `machine: ${availableParallelism()} cores, load average ${one?.toFixed(1)} (1 min), ${five?.toFixed(1)} (5 min)`;
}
