import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { startStack, type Stack } from '../helpers/stack';

/** The parts of Grafana's dashboard model the provisioned board must have to load and draw. */
const datasource = z.object({ type: z.literal('prometheus'), uid: z.literal('dds-prometheus') });
const dashboardSchema = z.object({
  uid: z.string().min(1),
  title: z.string().min(1),
  schemaVersion: z.number().int().min(36),
  panels: z
    .array(
      z.object({
        id: z.number().int().positive(),
        type: z.enum(['timeseries', 'stat']),
        title: z.string().min(1),
        datasource,
        gridPos: z.object({
          x: z.number().int().min(0),
          y: z.number().int().min(0),
          w: z.number().int().min(1).max(24),
          h: z.number().int().min(1),
        }),
        targets: z.array(z.object({ refId: z.string().min(1), datasource, expr: z.string().min(1) })).min(1),
      }),
    )
    .min(1),
});

const dashboard = dashboardSchema.parse(JSON.parse(readFileSync(join(__dirname, '../../deploy/grafana/dashboards/dds.json'), 'utf8')));
/** Series Prometheus adds itself rather than the service. */
const PROMETHEUS_SERIES = new Set(['up']);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => {
  await stack.stop();
});

describe('the provisioned Grafana dashboard (deploy/grafana/dashboards/dds.json)', () => {
  it('parses as a dashboard with unique panel ids and refIds', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      const refs = panel.targets.map((t) => t.refId);
      expect(new Set(refs).size).toBe(refs.length);
    }
  });

  it('only queries series the service exposes, and shows every dds series', async () => {
    const text = await (await fetch(stack.metricsUrl)).text();
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({ name: name as string, type }));
    const exposed = new Set(
      types.flatMap(({ name, type }) => (type === 'histogram' ? [`${name}_bucket`, `${name}_count`, `${name}_sum`] : [name])),
    );
    const queried = new Set(
      dashboard.panels.flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\b(?:dds|process|nodejs)_[a-z0-9_]+|\bup\b/g) ?? [])),
    );
    for (const name of queried) {
      if (!PROMETHEUS_SERIES.has(name)) expect({ name, exposed: exposed.has(name) }).toEqual({ name, exposed: true });
    }
    for (const family of types.map((t) => t.name).filter((n) => n.startsWith('dds_'))) {
      expect({ family, shown: [...queried].some((q) => q.startsWith(family)) }).toEqual({ family, shown: true });
    }
  });
});
