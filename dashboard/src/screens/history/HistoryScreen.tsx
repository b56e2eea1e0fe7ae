import { api } from '../../api/client';
import { dataApiPin } from '../../pins/pin-types';
import { useDeviceSnapshots } from '../../realtime/snapshots';
import { useRoom } from '../../realtime/socket';
import { Link } from '../../router';
import { ErrorLine, useLoad } from '../../ui/common';
import { NotFound } from '../NotFound';
import { LiveHistory } from './LiveHistory';
import { StoredHistory } from './StoredHistory';

/** `/devices/{id}/pins/{pin}`: the history of one pin, `pin` a name (V3, D0, A1) or null when the path names none. */
export function HistoryScreen({ deviceId, pin }: { deviceId: string; pin: string | null }) {
  const device = useLoad(() => api.device(deviceId), [deviceId]);
  useRoom({ deviceId });
  useDeviceSnapshots([deviceId]);
  if (pin === null) return <NotFound what="pin" />;
  if (device.notFound) return <NotFound what="device" />;
  const number = dataApiPin(pin);
  const name = device.data?.name ?? 'Device';
  return (
    <div className="stack">
      <p>
        <Link to={`/devices/${deviceId}`}>← {name}</Link>
      </p>
      <h1>History of {pin}</h1>
      <ErrorLine error={device.error} />
      {number === null ? (
        <LiveHistory deviceId={deviceId} pin={pin} />
      ) : (
        <StoredHistory deviceId={deviceId} deviceName={name} pin={pin} number={number} />
      )}
    </div>
  );
}
