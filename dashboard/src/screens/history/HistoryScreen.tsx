import { api } from '../../api/client';
import { Link } from '../../router';
import { ErrorLine, useLoad } from '../../ui/common';
import { NotFound } from '../NotFound';
import { StoredHistory } from './StoredHistory';

/**
 * `/devices/{id}/pins/{pin}`: the stored history of one pin, `pin` a name (V3, D0, A1) or null when
 * the path names none; the data API reads V, D and A pins by that name.
 */
export function HistoryScreen({ deviceId, pin }: { deviceId: string; pin: string | null }) {
  const device = useLoad(() => api.device(deviceId), [deviceId]);
  const project = useLoad(async () => (device.data ? api.project(device.data.projectId) : undefined), [device.data?.projectId]);
  if (pin === null) return <NotFound what="pin" />;
  if (device.notFound) return <NotFound what="device" />;
  const canEdit = project.data ? project.data.role !== 'viewer' : false;
  const name = device.data?.name ?? 'Device';
  return (
    <div className="stack">
      <p>
        <Link to={`/devices/${deviceId}`}>← {name}</Link>
      </p>
      <h1>History of {pin}</h1>
      <ErrorLine error={device.error} />
      <StoredHistory deviceId={deviceId} deviceName={name} pin={pin} canEdit={canEdit} />
    </div>
  );
}
