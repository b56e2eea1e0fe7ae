import { useMemo, useState } from 'react';
import type { Point } from '../../api/types';
import { EmptyRow } from '../../ui/common';
import { Pager } from '../../ui/Pager';

const PAGE = 20;

/**
 * The points of a history read, newest first, 20 to a page. Two raw points may share a time (the
 * store orders them by arrival), so a row's key is its time and its place among those of that time.
 */
export function PointsTable({ points, valueLabel, empty }: { points: Point[]; valueLabel: string; empty: string }) {
  const [page, setPage] = useState(1);
  const rows = useMemo(() => {
    const seen = new Map<string, number>();
    const keyed = points.map((p) => {
      const n = seen.get(p.timestamp) ?? 0;
      seen.set(p.timestamp, n + 1);
      return { ...p, key: `${p.timestamp}#${n}` };
    });
    return keyed.reverse();
  }, [points]);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const shown = Math.min(page, pages);
  return (
    <>
      <div className="table-scroll">
        <table data-testid="history-table">
          <thead>
            <tr>
              <th>Time</th>
              <th>{valueLabel}</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice((shown - 1) * PAGE, shown * PAGE).map((p) => (
              <tr key={p.key}>
                <td>
                  <time dateTime={p.timestamp}>{new Date(p.timestamp).toLocaleString()}</time>
                </td>
                <td>{p.value}</td>
              </tr>
            ))}
            {rows.length === 0 && <EmptyRow columns={2} text={empty} />}
          </tbody>
        </table>
      </div>
      {rows.length > PAGE && <Pager page={shown} limit={PAGE} total={rows.length} onPage={setPage} label="History" />}
    </>
  );
}
