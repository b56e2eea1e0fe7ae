/** The shell commands the connect panel offers for one device, built from the broker settings. */

export interface ConnectTarget {
  mqttUrl: string;
  topicRoot: string;
  deviceId: string;
  /** The device's `dt_` token, or null when it is not known any more (shown only at create or regenerate). */
  token: string | null;
}

/** A word for a POSIX shell: single-quoted unless it is plainly safe. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The `mosquitto_pub`/`mosquitto_sub` connection flags of a broker URL, or null for a WebSocket URL (they speak TCP). */
function connectionFlags(mqttUrl: string): string | null {
  const url = new URL(mqttUrl);
  if (url.protocol !== 'mqtt:' && url.protocol !== 'mqtts:') return null;
  const tls = url.protocol === 'mqtts:';
  const port = url.port || (tls ? '8883' : '1883');
  return `-h ${shellWord(url.hostname)} -p ${port}${tls ? ' --capath /etc/ssl/certs' : ''} -V mqttv5`;
}

const TOKEN_PLACEHOLDER = '<dt_ token>';

function login(t: ConnectTarget): string {
  return `-i ${t.deviceId} -u ${t.deviceId} -P ${t.token ? shellWord(t.token) : `'${TOKEN_PLACEHOLDER}'`}`;
}

/** Publishes `value` on the device's `pin` as the device itself (its values topic). */
export function publishCommand(t: ConnectTarget, pin: string, value: string): string | null {
  const flags = connectionFlags(t.mqttUrl);
  return flags && `mosquitto_pub ${flags} ${login(t)} -t ${shellWord(`${t.topicRoot}/${t.deviceId}/pin/${pin}`)} -m ${shellWord(value)}`;
}

/** Prints the commands apps send the device (`…/pin/+/set`). */
export function subscribeCommand(t: ConnectTarget): string | null {
  const flags = connectionFlags(t.mqttUrl);
  return flags && `mosquitto_sub ${flags} ${login(t)} -t ${shellWord(`${t.topicRoot}/${t.deviceId}/pin/+/set`)} -v`;
}

/** `npm run simulate` as this device: signs in as the user, joins the project and the device by name (scripts/simulate). */
export function simulatorCommand(options: {
  url: string;
  mqttUrl: string;
  topicRoot: string;
  email: string;
  projectId: string;
  deviceName: string;
}): string {
  return [
    `DDS_PASSWORD=${shellWord('<your password>')} npm run simulate --`,
    `--url ${shellWord(options.url)} --mqtt-url ${shellWord(options.mqttUrl)} --topic-root ${shellWord(options.topicRoot)}`,
    `--email ${shellWord(options.email)} --project ${options.projectId} --device-name ${shellWord(options.deviceName)}`,
  ].join(' \\\n  ');
}
