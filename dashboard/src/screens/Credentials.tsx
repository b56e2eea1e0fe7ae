import { Secret } from '../ui/common';

/** The broker login of a device, shown once after create or regenerate, with a connect snippet. */
export function Credentials({ deviceId, token, onDone }: { deviceId: string; token: string; onDone: () => void }) {
  const snippet = [
    `# MQTT: username = device id, password = dt_ token (docs/api.md, MQTT)`,
    `mosquitto_pub -h <broker-host> -p 1883 -V mqttv5 \\`,
    `  -u ${deviceId} -P ${token} \\`,
    `  -t '<topic-root>/${deviceId}/pin/V1' -m 42`,
    `mosquitto_sub -h <broker-host> -p 1883 -V mqttv5 -u ${deviceId} -P ${token} \\`,
    `  -t '<topic-root>/${deviceId}/pin/+/set'`,
  ].join('\n');
  return (
    <div className="credentials card" data-testid="device-credentials">
      <strong>Save these now: the token is shown only once.</strong>
      <Secret label="MQTT username (device id)" value={deviceId} />
      <Secret label="MQTT password (dt_ token)" value={token} />
      <pre className="snippet">{snippet}</pre>
      <button type="button" onClick={onDone}>
        I saved them
      </button>
    </div>
  );
}
