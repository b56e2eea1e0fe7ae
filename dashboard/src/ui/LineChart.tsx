import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { placeTimeTicks } from './chart-ticks';
import { AXIS_FONT, tickLabels, tickSpace } from './time-axis';

/** A uPlot line (or bar) chart sized to its box; `xs` in seconds since the epoch. */
export function LineChart({
  xs,
  ys,
  height,
  bars = false,
  label = 'value',
}: {
  xs: number[];
  ys: number[];
  height: number;
  bars?: boolean;
  label?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: xs and ys only seed the chart built here; the data effect below feeds new points with setData, so a new point must not rebuild the chart
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let ticks: Array<{ at: number; text: string }> = [];
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 100),
      height,
      legend: { show: false },
      cursor: { show: true },
      series: [
        {},
        {
          label,
          stroke: '#2563eb',
          fill: bars ? 'rgba(37,99,235,0.5)' : 'rgba(37,99,235,0.08)',
          width: 2,
          paths: bars ? uPlot.paths.bars?.({ size: [0.8, 40] }) : undefined,
        },
      ],
      axes: [
        {
          // The labels are DOM text placed by placeTimeTicks; the canvas draws the ticks and grid only.
          stroke: 'transparent',
          font: AXIS_FONT,
          grid: { stroke: '#eef2f7' },
          ticks: { stroke: '#cbd5e1' },
          space: (_u, _axis, min, max, plotDim) => tickSpace(max - min, plotDim),
          values: (u, splits, _axis, _space, incr) => {
            const scale = u.scales.x;
            const texts = tickLabels(splits, (scale?.max ?? 0) - (scale?.min ?? 0), incr);
            ticks = splits.map((at, i) => ({ at, text: texts[i] ?? '' }));
            return texts;
          },
        },
        { stroke: '#64748b', font: AXIS_FONT, grid: { stroke: '#eef2f7' }, size: 45 },
      ],
      hooks: { draw: [(u) => placeTimeTicks(u, ticks)] },
    };
    plot.current = new uPlot(opts, [xs, ys], el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(el.clientWidth, 100), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [height, bars, label]);

  useEffect(() => {
    const p = plot.current;
    if (!p) return;
    p.setData([xs, ys]);
    // One point (or a burst within a minute) would otherwise get a range of years around it.
    const first = xs[0];
    const last = xs[xs.length - 1];
    if (first !== undefined && last !== undefined && last - first < 60) p.setScale('x', { min: first - 60, max: last + 60 });
  }, [xs, ys]);

  return <div ref={box} className="chart" data-testid="chart" />;
}
