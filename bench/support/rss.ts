import { readFileSync } from 'node:fs';

/** Resident set size of a live process in bytes (VmRSS of /proc/{pid}/status); NaN when unreadable. */
export function rssBytes(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.replace(/\D+/g, '')) * 1024 : NaN;
  } catch {
    return NaN;
  }
}
