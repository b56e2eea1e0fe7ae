import mqtt, { type MqttClient } from 'mqtt';
import { LAST_WILL_PROPERTY } from '../../common/mqtt-topics';
import type { SimulatedDevice } from './api';
import { type OtaCounters, otaAgent } from './ota';
import { deviceSignals } from './signals';
import { type SignalPin, templateSignals } from './template-signals';

export interface DeviceCounters extends OtaCounters {
  published: number;
  commands: number;
  errors: number;
}

const info = (firmwareVersion: string): string => JSON.stringify({ firmwareVersion, hardwareType: 'simulator' });

export interface RunningDevice {
  stop(): Promise<void>;
}

/**
 * One simulated device on its own MQTT credentials (deviceId + dt_ token): a Last Will says
 * `offline`, it announces `online` on every connect, publishes a reading every 1/rate s, and answers a
 * command on `<root>/<id>/pin/<pin>/set` by reporting the new value back on the pin. With `pins`
 * (a template's) it reports on those pins, else on V0, V1 and D0. It runs `firmware` (its `info`
 * says so, after `online`) and answers OTA offers on `<root>/<id>/ota`
 * (ota.ts), then runs the new version; with `otaFail` its updates fail. Over mqtts:// (or wss://) the
 * broker's certificate must verify against `ca` (else the system's CAs) and name the URL's host;
 * a broker that does not is refused.
 */
export async function startDevice(
  device: SimulatedDevice,
  seed: number,
  options: {
    mqttUrl: string;
    topicRoot: string;
    rate: number;
    pins?: readonly SignalPin[];
    ca?: Buffer;
    firmware: string;
    otaFail: boolean;
    /** One line per OTA step. */
    log: (line: string) => void;
  },
  counters: DeviceCounters,
): Promise<RunningDevice> {
  const base = `${options.topicRoot}/${device.id}`;
  const client: MqttClient = await mqtt.connectAsync(options.mqttUrl, {
    username: device.id,
    password: device.token,
    clientId: `sim-${device.id}`,
    protocolVersion: 5,
    connectTimeout: 5000,
    reconnectPeriod: 2000,
    ...(options.ca ? { ca: options.ca } : {}),
    rejectUnauthorized: true,
    will: {
      topic: `${base}/status`,
      payload: Buffer.from('offline'),
      qos: 1,
      retain: false,
      properties: { userProperties: { [LAST_WILL_PROPERTY.name]: LAST_WILL_PROPERTY.value } },
    },
  });
  client.on('error', () => void counters.errors++);
  const publish = (topic: string, value: string): void => {
    client.publishAsync(topic, value, { qos: 1 }).then(
      () => void counters.published++,
      () => void counters.errors++,
    );
  };

  const ota = otaAgent(
    {
      name: device.name,
      report: (report) => client.publishAsync(`${base}/ota/status`, JSON.stringify(report), { qos: 1 }).then(() => undefined),
      announce: (version) => client.publishAsync(`${base}/info`, info(version), { qos: 1 }).then(() => undefined),
      log: options.log,
    },
    options.firmware,
    options.otaFail,
    counters,
  );
  const announce = async (): Promise<void> => {
    await client.publishAsync(`${base}/status`, 'online', { qos: 1 });
    await client.publishAsync(`${base}/info`, info(ota.version()), { qos: 1 });
  };

  client.on('message', (topic, payload) => {
    if (topic === `${base}/ota`) return ota.offer(payload);
    const match = new RegExp(`^${base}/pin/([^/]+)/set$`).exec(topic);
    if (!match) return;
    counters.commands++;
    publish(`${base}/pin/${match[1]}`, payload.toString('utf8'));
  });
  await client.subscribeAsync([`${base}/pin/+/set`, `${base}/ota`], { qos: 1 });
  await announce();
  // A reconnect is a restart: the device says again that it is online, and on which firmware.
  client.on('connect', () => void announce().catch(() => void counters.errors++));

  const next = options.pins?.length ? templateSignals(options.pins, seed) : deviceSignals(seed);
  const timer = setInterval(() => {
    if (!client.connected) return;
    const reading = next(Date.now());
    publish(`${base}/pin/${reading.pin}`, reading.value);
  }, 1000 / options.rate);

  return {
    async stop() {
      clearInterval(timer);
      ota.stop();
      if (client.connected) await client.publishAsync(`${base}/status`, 'offline', { qos: 1 }).catch(() => undefined);
      await client.endAsync();
    },
  };
}
