export interface Summary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of `values` (NaN when there are none). */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
  return { count: sorted.length, p50: rank(50), p99: rank(99), max: sorted[sorted.length - 1] ?? NaN };
}

/** One timed message: when it was sent (epoch ms) and how long it took to arrive. */
export interface Sample {
  sentAt: number;
  latency: number;
}

/** Latencies of the messages sent in the second half of the send window: past any start-up burst. */
export function secondHalf(samples: readonly Sample[]): number[] {
  let first = Infinity;
  let last = -Infinity;
  for (const s of samples) {
    if (s.sentAt < first) first = s.sentAt;
    if (s.sentAt > last) last = s.sentAt;
  }
  const middle = first + (last - first) / 2;
  return samples.filter((s) => s.sentAt >= middle).map((s) => s.latency);
}

/** The middle value (lower of the two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return '-';
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

export function latencyLine(s: Summary): string {
  return `p50 ${ms(s.p50)}  p99 ${ms(s.p99)}  max ${ms(s.max)}  (n=${s.count})`;
}

/** Events per second over the span between the first and the last event time (ms). */
export function ratePerSecond(times: readonly number[]): number {
  if (times.length < 2) return NaN;
  let first = Infinity;
  let last = -Infinity;
  for (const t of times) {
    if (t < first) first = t;
    if (t > last) last = t;
  }
  return last > first ? ((times.length - 1) * 1000) / (last - first) : NaN;
}

export function ratio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${(a / b).toFixed(2)}×` : '-';
}

/** Prints a title and `label  value` lines with the labels padded to one column. */
export function printRows(title: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(`${title}\n${rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`.trimEnd()).join('\n')}\n`);
}

/** Prints a table: the first column left-aligned, the others right-aligned. */
export function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]): string =>
    cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join('  ');
  process.stdout.write(`${[line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')}\n`);
}

/** p99 of each second of sending (by sentAt), in order: where in a run the slow messages were. */
export function p99BySecond(samples: readonly Sample[]): number[] {
  if (samples.length === 0) return [];
  const first = samples.reduce((min, s) => Math.min(min, s.sentAt), Infinity);
  const seconds: number[][] = [];
  for (const s of samples) (seconds[Math.floor((s.sentAt - first) / 1000)] ??= []).push(s.latency);
  return [...seconds].map((latencies) => summarize(latencies ?? []).p99);
}
