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
