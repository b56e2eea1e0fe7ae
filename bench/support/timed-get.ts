import { performance } from 'node:perf_hooks';
import { median } from './stats';

export interface Timing {
  bestMs: number;
  medianMs: number;
  bytes: number;
  /** The last response's body. */
  body: string;
}

/** GETs `url` `runs` times one after the other, timing each to the last byte of the body; any non-2xx throws. */
export async function timedGet(url: string, token: string, runs: number): Promise<Timing> {
  const times: number[] = [];
  let body = '';
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) });
    body = await res.text();
    times.push(performance.now() - started);
    if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 300)}`);
  }
  return { bestMs: Math.min(...times), medianMs: median(times), bytes: Buffer.byteLength(body), body };
}
