import type { Device } from '../api/types';
import { useDeviceStatus } from '../realtime/live-values';
import { timeAgo } from '../ui/common';

/** Online/offline and last seen: the live `device:status` when one arrived, else what the API said. */
export function StatusBadge({ device }: { device: Pick<Device, 'id' | 'status' | 'lastSeen'> }) {
  const live = useDeviceStatus(device.id);
  const status = live?.status ?? device.status;
  const lastSeen = live?.lastSeen ?? device.lastSeen;
  return (
    <span className="status" data-testid={`status-${device.id}`}>
      <span className={`dot ${status}`} /> {status} <span className="muted">· last seen {timeAgo(lastSeen)}</span>
    </span>
  );
}
