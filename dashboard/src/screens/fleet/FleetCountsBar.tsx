import type { FleetCounts } from './fleet-counts';
import type { FleetFilters } from './fleet-filters';

/** The matching devices by status and by firmware version; a click filters by it. */
export function FleetCountsBar({
  counts,
  onFilter,
}: {
  counts: FleetCounts | undefined;
  onFilter: (change: Partial<FleetFilters>) => void;
}) {
  if (!counts) return <p className="muted">Counting…</p>;
  return (
    <div className="fleet-summary" data-testid="fleet-counts">
      <button type="button" className="chip" onClick={() => onFilter({ status: 'online' })} data-testid="fleet-online">
        <span className="dot online" /> {counts.online} online
      </button>
      <button type="button" className="chip" onClick={() => onFilter({ status: 'offline' })} data-testid="fleet-offline">
        <span className="dot" /> {counts.offline} offline
      </button>
      {counts.firmware.map(({ version, count }) => (
        <button
          key={version}
          type="button"
          className="chip"
          onClick={() => onFilter({ firmwareVersion: version })}
          data-testid="fleet-firmware"
        >
          firmware {version}: {count}
        </button>
      ))}
      {counts.rest > 0 && (
        <span className="chip muted" data-testid="fleet-firmware-rest">
          {counts.exact ? 'no firmware reported' : 'other or no firmware'}: {counts.rest}
        </span>
      )}
    </div>
  );
}
