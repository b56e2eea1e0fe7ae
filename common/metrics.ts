/** Process-local counters, exposed in the Prometheus text format at GET /metrics. */
export function createMetrics() {
  const counters = new Map<string, { help: string; value: number }>();
  return {
    counter(name: string, help: string) {
      const entry = counters.get(name) ?? { help, value: 0 };
      counters.set(name, entry);
      return { inc: (by = 1) => void (entry.value += by), get: () => entry.value };
    },
    render(): string {
      return [...counters.entries()]
        .map(([name, c]) => `# HELP ${name} ${c.help}\n# TYPE ${name} counter\n${name} ${c.value}\n`)
        .join('');
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
