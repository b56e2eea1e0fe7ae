import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { summarize, type Summary } from './stats';

/** Longest a probe runs if nobody stops it. */
const CAP_MS = 300_000;

/**
 * GETs `url` one request at a time, `gapMs` apart, until stopped: how long a trivial request
 * waits shows how long the server's event loop is blocked under load.
 */
export function probe(url: string, gapMs = 100): { stop(): Promise<Summary> } {
  const latencies: number[] = [];
  let running = true;
  const deadline = Date.now() + CAP_MS;
  const loop = (async () => {
    while (running && Date.now() < deadline) {
      const started = performance.now();
      const ok = await fetch(url, { signal: AbortSignal.timeout(10_000) }).then(
        async (res) => (await res.text(), res.ok),
        () => false,
      );
      if (ok) latencies.push(performance.now() - started);
      await delay(gapMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return summarize(latencies);
    },
  };
}
