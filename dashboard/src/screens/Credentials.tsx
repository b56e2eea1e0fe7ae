import { Secret } from '../ui/common';
import { ConnectPanel } from './connect/ConnectPanel';

/** The broker login of a device, shown once after create or regenerate, with its connect commands. */
export function Credentials({
  device,
  token,
  onDone,
}: {
  device: { id: string; name: string; projectId: string };
  token: string;
  onDone: () => void;
}) {
  return (
    <div className="credentials card" data-testid="device-credentials">
      <strong>Save these now: the token is shown only once.</strong>
      <Secret label="MQTT username (device id)" value={device.id} />
      <Secret label="MQTT password (dt_ token)" value={token} />
      <ConnectPanel device={device} token={token} />
      <button type="button" onClick={onDone}>
        I saved them
      </button>
    </div>
  );
}
