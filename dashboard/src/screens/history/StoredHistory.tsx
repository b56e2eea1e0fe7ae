import { useMemo, useState } from 'react';
import { api, type HistoryQuery } from '../../api/client';
import { Card, ErrorLine, useAction, useLoad } from '../../ui/common';
import { LineChart } from '../../ui/LineChart';
import { PointsTable } from './PointsTable';

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

/**
 * The stored points of a pin, V, D or A alike (the data API reads each by its name): any range, raw or
 * aggregated, as a chart and a table, with a CSV download and, for editors, deleting the range shown.
 */
export function StoredHistory({
  deviceId,
  deviceName,
  pin,
  canEdit,
}: {
  deviceId: string;
  deviceName: string;
  pin: string;
  canEdit: boolean;
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
  const history = useLoad(() => api.history(deviceId, pin, query), [deviceId, pin, query]);
  const [run, error, busy] = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const points = history.data?.points ?? [];
  const xs = useMemo(() => points.map((p) => Date.parse(p.timestamp) / 1000), [points]);
  const ys = useMemo(() => points.map((p) => p.value), [points]);

  const download = () =>
    run(async () => {
      const blob = await api.historyCsv(deviceId, pin, query);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${deviceName}-${pin}.csv`;
      a.click();
      URL.revokeObjectURL(a.href);
    });

  const from = new Date(query.from).toLocaleString();
  const to = new Date(query.to).toLocaleString();
  const deleteRange = () =>
    confirm(`Delete every point stored on ${pin} from ${from} to ${to}? This cannot be undone.`) &&
    run(async () => {
      const { deleted } = await api.deleteHistory(deviceId, pin, { from: query.from, to: query.to });
      setNotice(`Deleted ${deleted} point${deleted === 1 ? '' : 's'} stored on ${pin} from ${from} to ${to}.`);
      setRefresh((r) => r + 1);
    });

  return (
    <Card
      title={`${points.length} point${points.length === 1 ? '' : 's'}`}
      actions={
        <>
          <button type="button" onClick={download}>
            Download CSV
          </button>
          {canEdit && (
            <button type="button" className="danger" disabled={busy} onClick={deleteRange}>
              Delete range
            </button>
          )}
        </>
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
      {notice && (
        <p className="muted" role="status" data-testid="history-deleted">
          {notice}
        </p>
      )}
      <LineChart xs={xs} ys={ys} height={320} />
      {history.data && (
        <PointsTable
          points={points}
          valueLabel={aggregate === 'raw' ? 'Value' : (AGGREGATES.find(([a]) => a === aggregate)?.[1] ?? 'Value')}
          empty={`No numeric values stored on ${pin} in this range.`}
        />
      )}
    </Card>
  );
}
