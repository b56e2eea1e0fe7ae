import type { Device } from '../../api/types';
import { Link } from '../../router';
import { EmptyRow } from '../../ui/common';
import { StatusBadge } from '../StatusBadge';

/** A page of matching devices with a tick box each (and one for the whole page). */
export function FleetTable(props: {
  devices: readonly Device[];
  projectName: (projectId: string) => string;
  isTicked: (deviceId: string) => boolean;
  onTick: (devices: readonly Device[], ticked: boolean) => void;
  /** Every matching device is selected: the boxes show it and cannot be changed one by one. */
  locked: boolean;
  emptyText: string;
}) {
  const { devices, isTicked, onTick } = props;
  const allTicked = devices.length > 0 && devices.every((d) => isTicked(d.id));
  return (
    <div className="table-scroll">
      <table data-testid="fleet-table">
        <thead>
          <tr>
            <th>
              <input
                type="checkbox"
                aria-label="Select this page"
                checked={allTicked}
                disabled={props.locked}
                onChange={(e) => onTick(devices, e.target.checked)}
              />
            </th>
            <th>Name</th>
            <th>Project</th>
            <th>Status</th>
            <th>Tags</th>
            <th>Firmware</th>
          </tr>
        </thead>
        <tbody>
          {devices.map((d) => (
            <tr key={d.id} data-testid="fleet-row">
              <td>
                <input
                  type="checkbox"
                  aria-label={`Select ${d.name}`}
                  checked={isTicked(d.id)}
                  disabled={props.locked}
                  onChange={(e) => onTick([d], e.target.checked)}
                />
              </td>
              <td>
                <Link to={`/devices/${d.id}`}>{d.name}</Link>
              </td>
              <td>{props.projectName(d.projectId)}</td>
              <td>
                <StatusBadge device={d} />
              </td>
              <td>
                {d.tags.map((t) => (
                  <span key={t} className="tag">
                    {t}
                  </span>
                ))}
              </td>
              <td>{d.firmwareVersion ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
          {devices.length === 0 && <EmptyRow columns={6} text={props.emptyText} />}
        </tbody>
      </table>
    </div>
  );
}
