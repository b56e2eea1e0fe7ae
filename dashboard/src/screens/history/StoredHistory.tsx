import { useMemo, useState } from 'react';
import { api, type HistoryQuery } from '../../api/client';
import { Card, ErrorLine, useAction, useLoad } from '../../ui/common';
import { LineChart } from '../../ui/LineChart';

const RANGES: Array<[string, number]> = [
  ['Last hour', 3600],
  ['Last 6 hours', 6 * 3600],
  ['Last day', 86400],
  ['Last week', 7 * 86400],
  ['Last 30 days', 30 * 86400],
];
const AGGREGATES: Array<[HistoryQuery['aggregate'], string]> = [
  ['raw', 'Every point'],
  ['avg', 'Average'],
  ['min', 'Minimum'],
  ['max', 'Maximum'],
  ['sum', 'Sum'],
];
const INTERVALS: Array<[NonNullable<HistoryQuery['interval']>, string]> = [
  ['1m', 'per minute'],
  ['5m', 'per 5 minutes'],
  ['1h', 'per hour'],
  ['1d', 'per day'],
];

/** The stored points of a V pin (the data API reads V pins), any range, raw or aggregated, with a CSV download. */
export function StoredHistory({
  deviceId,
  deviceName,
  pin,
  number,
}: {
  deviceId: string;
  deviceName: string;
  pin: string;
  number: number;
}) {
  const [range, setRange] = useState(3600);
  const [aggregate, setAggregate] = useState<HistoryQuery['aggregate']>('raw');
  const [interval, setBucket] = useState<NonNullable<HistoryQuery['interval']>>('1m');
  const [refresh, setRefresh] = useState(0);
  const query = useMemo<HistoryQuery>(() => {
    const to = new Date();
    return {
      from: new Date(to.getTime() - range * 1000).toISOString(),
      to: to.toISOString(),
      aggregate,
      interval: aggregate === 'raw' ? undefined : interval,
      limit: 10000,
    };
  }, [range, aggregate, interval, refresh]);
  const history = useLoad(() => api.history(deviceId, number, query), [deviceId, number, query]);
  const [run, error] = useAction();
  const points = history.data?.points ?? [];
  const xs = useMemo(() => points.map((p) => Date.parse(p.timestamp) / 1000), [points]);
  const ys = useMemo(() => points.map((p) => p.value), [points]);

  const download = () =>
    run(async () => {
      const blob = await api.historyCsv(deviceId, number, query);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${deviceName}-${pin}.csv`;
      a.click();
      URL.revokeObjectURL(a.href);
    });

  return (
    <Card
      title={`${points.length} point${points.length === 1 ? '' : 's'}`}
      actions={
        <button type="button" onClick={download}>
          Download CSV
        </button>
      }
    >
      <div className="row">
        <select aria-label="Time range" value={range} onChange={(e) => setRange(Number(e.target.value))}>
          {RANGES.map(([label, s]) => (
            <option key={s} value={s}>
              {label}
            </option>
          ))}
        </select>
        <select aria-label="Aggregate" value={aggregate} onChange={(e) => setAggregate(e.target.value as HistoryQuery['aggregate'])}>
          {AGGREGATES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <select
          aria-label="Interval"
          value={interval}
          disabled={aggregate === 'raw'}
          onChange={(e) => setBucket(e.target.value as NonNullable<HistoryQuery['interval']>)}
        >
          {INTERVALS.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => setRefresh((r) => r + 1)}>
          Refresh
        </button>
      </div>
      <ErrorLine error={history.error ?? error} />
      <LineChart xs={xs} ys={ys} height={320} />
      {history.data && points.length === 0 && <p className="empty">No numeric values stored on {pin} in this range.</p>}
    </Card>
  );
}
