import { performance } from 'node:perf_hooks';
import { printTable, ratio, ms, summarize } from './stats';

/** One device-list query of the bench: its label and its query string (after `projectId`). */
export interface ListQuery {
  label: string;
  query: string;
}

interface Timed {
  times: number[];
  total: number;
}

/**
 * Pages of GET /api/v1/devices (limit 20) for each query, `samples` of each, the queries taken in
 * turn (so load on the machine falls on each alike); prints p50 / p99 of each beside the first
 * query's (the unfiltered page, the baseline) and how many devices each matched.
 */
export async function listPages(baseUrl: string, token: string, projectId: string, queries: ListQuery[], samples: number): Promise<void> {
  const results: Timed[] = queries.map(() => ({ times: [], total: 0 }));
  for (let round = 0; round < samples; round++) {
    for (const [i, q] of queries.entries()) {
      const url = `${baseUrl}/api/v1/devices?projectId=${projectId}&limit=20${q.query ? `&${q.query}` : ''}`;
      const started = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(60_000) });
      const body = (await res.json()) as { data?: { total: number } };
      const took = performance.now() - started;
      if (!res.ok || !body.data) throw new Error(`GET ${url} answered ${res.status}`);
      const result = results[i] as Timed;
      result.times.push(took);
      result.total = body.data.total;
    }
  }
  const base = summarize((results[0] as Timed).times);
  printTable(
    ['page of 20', 'matches', 'p50', 'p99', 'p50 ÷ unfiltered', 'p99 ÷ unfiltered'],
    queries.map((q, i) => {
      const r = results[i] as Timed;
      const s = summarize(r.times);
      return [q.label, String(r.total), ms(s.p50), ms(s.p99), ratio(s.p50, base.p50), ratio(s.p99, base.p99)];
    }),
  );
}
