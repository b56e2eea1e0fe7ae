/** The MQTT bridge's counters from the service's GET /metrics (on its METRICS_PORT). */
export async function bridgeCounters(metricsUrl: string): Promise<{ handled: number; dropped: number }> {
  const text = await (await fetch(metricsUrl)).text();
  return { handled: series(text, 'dds_mqtt_messages_total'), dropped: series(text, 'dds_mqtt_values_dropped_total') };
}

/** The node's broker-queue lag (seconds) and the drops its probes saw, from its GET /metrics. */
export async function queueGauges(metricsUrl: string): Promise<{ lag: number; drops: number }> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  return { lag: series(text, 'dds_mqtt_queue_lag_seconds'), drops: series(text, 'dds_mqtt_queue_drops_total') };
}

/** The value of an unlabelled series in a Prometheus text exposition (NaN when absent). */
function series(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
}

/** The node's twin signals by outcome (`dds_twin_calls_total{kind="signal",name}`), from its GET /metrics. */
export async function twinSignals(metricsUrl: string, name: string): Promise<{ sent: number; failed: number }> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  const of = (outcome: string): number =>
    Number(new RegExp(`^dds_twin_calls_total\\{kind="signal",name="${name}",outcome="${outcome}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { sent: of('sent'), failed: of('failed') };
}

/** V8's GC pauses by kind (minor, major, incremental, weakcb) from prom-client's default `nodejs_gc_duration_seconds`: count and total seconds. */
export type GcPauses = Map<string, { count: number; seconds: number }>;

/** The node's GC pauses so far, from its GET /metrics. */
export async function gcPauses(metricsUrl: string): Promise<GcPauses> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  const pauses: GcPauses = new Map();
  for (const [, part, kind, value] of text.matchAll(/^nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} (\S+)$/gm)) {
    const entry = pauses.get(kind as string) ?? { count: 0, seconds: 0 };
    if (part === 'sum') entry.seconds = Number(value);
    else entry.count = Number(value);
    pauses.set(kind as string, entry);
  }
  return pauses;
}

/** What `after` adds to `before`, one line: each kind's pauses, their total and mean (e.g. `minor 350 × 9.8 ms = 3.43 s`). */
export function gcPausesLine(before: GcPauses, after: GcPauses): string {
  const parts = [...after].flatMap(([kind, { count, seconds }]) => {
    const n = count - (before.get(kind)?.count ?? 0);
    const total = seconds - (before.get(kind)?.seconds ?? 0);
    return n > 0 ? [`${kind} ${n} × ${((1000 * total) / n).toFixed(1)} ms = ${total.toFixed(2)} s`] : [];
  });
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/** Signals and Updates the node has sent to twins so far, keyed `kind name outcome` (e.g. `update rulesChanged sent`), from `dds_twin_calls_total`. */
export async function twinCalls(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
  const calls = new Map<string, number>();
  for (const [, kind, name, outcome, value] of text.matchAll(
    /^dds_twin_calls_total\{kind="(\w+)",name="(\w+)",outcome="(\w+)"\} (\S+)$/gm,
  )) {
    calls.set(`${kind} ${name} ${outcome}`, Number(value));
  }
  return calls;
}

/** What `after` adds to `before`, for the keys that grew. */
export function callsAdded(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const added = new Map<string, number>();
  for (const [key, value] of after) if (value > (before.get(key) ?? 0)) added.set(key, value - (before.get(key) ?? 0));
  return added;
}
