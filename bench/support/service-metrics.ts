/** The MQTT bridge's counters from the service's GET /metrics (on its METRICS_PORT). */
export async function bridgeCounters(metricsUrl: string): Promise<{ handled: number; dropped: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const counter = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { handled: counter('dds_mqtt_messages_total'), dropped: counter('dds_mqtt_values_dropped_total') };
}
