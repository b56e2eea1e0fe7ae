import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** A uPlot line (or bar) chart sized to its box; `xs` in seconds since the epoch. */
export function LineChart({ xs, ys, height, bars = false, label = 'value' }: { xs: number[]; ys: number[]; height: number; bars?: boolean; label?: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
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
      axes: [{ stroke: '#64748b', grid: { stroke: '#eef2f7' } }, { stroke: '#64748b', grid: { stroke: '#eef2f7' }, size: 45 }],
    };
    plot.current = new uPlot(opts, [xs, ys], el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(el.clientWidth, 100), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [height, bars, label]); // the data effect below feeds new points

  useEffect(() => {
    const p = plot.current;
    if (!p) return;
    p.setData([xs, ys]);
    // One point (or a burst within a minute) would otherwise get a range of years around it.
    const first = xs[0];
    const last = xs[xs.length - 1];
    if (first !== undefined && last !== undefined && last - first < 60) p.setScale('x', { min: first - 60, max: last + 60 });
  }, [xs, ys]);

  return <div ref={box} className="chart" />;
}
