import { useEffect, useMemo, useState } from 'react';
import { LineChart } from '../ui/LineChart';
import { num, str } from './catalog';
import type { InputProps } from './inputs';
import { CoordinatePlot, Dial, fraction, parseCoordinate, RingGauge, Spark } from './svg';

type DisplayProps = Omit<InputProps, 'write' | 'readOnly'>;

const numeric = (v: string | undefined) => (v === undefined ? NaN : Number(v));
const truthy = (v: string | undefined) => v !== undefined && !['', '0', 'false', 'off', 'OFF'].includes(v.trim());

function Empty() {
  return <span className="muted">no value</span>;
}

export function GaugeWidget({ widget, value }: DisplayProps) {
  const min = num(widget.config, 'min', 0);
  const max = num(widget.config, 'max', 100);
  const suffix = str(widget.config, 'suffix', '');
  return <RingGauge f={fraction(numeric(value?.value), min, max)} text={value ? `${value.value}${suffix}` : '—'} sub={`${min} – ${max}`} />;
}

export function AnalogGaugeWidget({ widget, value }: DisplayProps) {
  const min = num(widget.config, 'min', 0);
  const max = num(widget.config, 'max', 100);
  return (
    <Dial
      f={fraction(numeric(value?.value), min, max)}
      text={value ? `${value.value}${str(widget.config, 'suffix', '')}` : '—'}
      min={min}
      max={max}
    />
  );
}

function useNumericSeries(series: DisplayProps['series'], count: number) {
  return useMemo(() => {
    const pts = (series ?? []).filter((p) => Number.isFinite(Number(p.value))).slice(-count);
    return { xs: pts.map((p) => Date.parse(p.at) / 1000), ys: pts.map((p) => Number(p.value)) };
  }, [series, count]);
}

export function GraphWidget({ series }: DisplayProps) {
  const { xs, ys } = useNumericSeries(series, 200);
  return <LineChart xs={xs} ys={ys} height={160} />;
}

export function BarChartWidget({ series }: DisplayProps) {
  const { xs, ys } = useNumericSeries(series, 20);
  return <LineChart xs={xs} ys={ys} height={160} bars />;
}

export function SparklineWidget({ widget, series, value }: DisplayProps) {
  const { ys } = useNumericSeries(series, 60);
  return (
    <div className="spark">
      <span className="value">
        {value?.value ?? '—'}
        {str(widget.config, 'suffix', '')}
      </span>
      <Spark values={ys} />
    </div>
  );
}

export function ValueDisplayWidget({ widget, value }: DisplayProps) {
  return <div className="big-value">{value ? `${value.value}${str(widget.config, 'suffix', '')}` : <Empty />}</div>;
}

export function LcdWidget({ value }: DisplayProps) {
  const lines = (value?.value ?? '').split('\n');
  return (
    <div className="lcd">
      <div>{(lines[0] ?? '').slice(0, 16).padEnd(16, ' ')}</div>
      <div>{(lines[1] ?? '').slice(0, 16).padEnd(16, ' ')}</div>
    </div>
  );
}

export function LedWidget({ value }: DisplayProps) {
  const on = truthy(value?.value);
  return (
    <div className="center">
      <span className={`led ${on ? 'on' : ''}`} /> {on ? 'ON' : 'OFF'}
    </div>
  );
}

export function ProgressWidget({ widget, value }: DisplayProps) {
  const f = fraction(numeric(value?.value), num(widget.config, 'min', 0), num(widget.config, 'max', 100));
  return (
    <div className="progress">
      <div className="bar" style={{ width: `${f * 100}%` }} />
      <span>
        {value?.value ?? '—'}
        {str(widget.config, 'suffix', '')}
      </span>
    </div>
  );
}

export function SignalWidget({ widget, value }: DisplayProps) {
  const f = fraction(numeric(value?.value), num(widget.config, 'min', 0), num(widget.config, 'max', 100));
  const bars = Math.round(f * 4);
  return (
    <div className="center">
      <svg viewBox="0 0 50 40" width="60" role="img" aria-label={`Signal: ${bars} of 4 bars`}>
        {[0, 1, 2, 3].map((i) => (
          <rect key={i} x={i * 12 + 2} y={30 - i * 9} width="9" height={10 + i * 9} fill={i < bars ? '#16a34a' : '#e2e8f0'} rx="1" />
        ))}
      </svg>
      <span className="muted">{value?.value ?? '—'}</span>
    </div>
  );
}

export function ImageWidget({ value }: DisplayProps) {
  const v = value?.value ?? '';
  return /^(https?:|data:image\/|\/)/.test(v) ? <img src={v} alt="" className="fill contain" /> : v ? <code>{v}</code> : <Empty />;
}

export function TableWidget({ series }: DisplayProps) {
  return (
    <table className="compact">
      <tbody>
        {(series ?? [])
          .slice(-8)
          .reverse()
          .map((p) => (
            // A pin's series holds one value per time (live-values.ts), so the time is a stable key.
            <tr key={p.at}>
              <td className="muted">{new Date(p.at).toLocaleTimeString()}</td>
              <td>{p.value}</td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}

export function AlertWidget({ value }: DisplayProps) {
  const on = truthy(value?.value);
  return <div className={`alert ${on ? 'raised' : ''}`}>{on ? `⚠ ${value?.value}` : 'All clear'}</div>;
}

/** A value in seconds counts down from when it arrived; anything else is shown as it is. */
export function TimerWidget({ value }: DisplayProps) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const seconds = numeric(value?.value);
  if (!value) return <Empty />;
  if (!Number.isFinite(seconds)) return <div className="big-value">{value.value}</div>;
  const left = Math.max(0, Math.round(seconds - (now - Date.parse(value.at)) / 1000));
  const hh = String(Math.floor(left / 3600)).padStart(2, '0');
  const mm = String(Math.floor((left % 3600) / 60)).padStart(2, '0');
  const ss = String(left % 60).padStart(2, '0');
  return <div className="big-value mono">{`${hh}:${mm}:${ss}`}</div>;
}

export function IconStatusWidget({ value }: DisplayProps) {
  const v = value?.value;
  const icon = v === undefined ? '○' : truthy(v) ? '✔' : '✖';
  return (
    <div className={`icon-status ${v === undefined ? '' : truthy(v) ? 'ok' : 'bad'}`}>
      <span>{icon}</span> {v ?? ''}
    </div>
  );
}

/** What this pin relays; a bridge forwards values device to device, the console shows the last one. */
export function BridgeWidget({ value }: DisplayProps) {
  return <div className="center">⇄ {value?.value ?? <Empty />}</div>;
}

export function MapWidget({ series }: DisplayProps) {
  const points = useMemo(
    () =>
      (series ?? []).flatMap((p) => {
        const c = parseCoordinate(p.value);
        return c ? [{ ...c, at: p.at }] : [];
      }),
    [series],
  );
  return points.length ? <CoordinatePlot points={points.slice(-100)} /> : <span className="muted">no coordinates (send "lat,lon")</span>;
}

export function LocationWidget({ value }: DisplayProps) {
  const c = parseCoordinate(value?.value);
  if (!c || !value) return <span className="muted">no coordinates (send "lat,lon")</span>;
  return (
    <div className="location">
      <CoordinatePlot points={[{ ...c, at: value.at }]} />
      <code>
        {c.lat.toFixed(5)}, {c.lon.toFixed(5)}
      </code>
    </div>
  );
}
