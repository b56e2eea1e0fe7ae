import mqtt, { type MqttClient } from 'mqtt';
import { LAST_WILL_PROPERTY } from '../../common/mqtt-topics';
import type { SimulatedDevice } from './api';
import { deviceSignals } from './signals';
import { type SignalPin, templateSignals } from './template-signals';

export interface DeviceCounters {
  published: number;
  commands: number;
  errors: number;
}

export interface RunningDevice {
  stop(): Promise<void>;
}

/**
 * One simulated device on its own MQTT credentials (deviceId + dt_ token): a Last Will says
 * `offline`, it announces `online` on connect, publishes a reading every 1/rate s, and answers a
 * command on `<root>/<id>/pin/<pin>/set` by reporting the new value back on the pin. With `pins`
 * (a template's) it reports on those pins, else on V0, V1 and D0. Over mqtts:// (or wss://) the
 * broker's certificate must verify against `ca` (else the system's CAs) and name the URL's host;
 * a broker that does not is refused.
 */
export async function startDevice(
  device: SimulatedDevice,
  seed: number,
  options: { mqttUrl: string; topicRoot: string; rate: number; pins?: readonly SignalPin[]; ca?: Buffer },
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

  client.on('message', (topic, payload) => {
    const match = new RegExp(`^${base}/pin/([^/]+)/set$`).exec(topic);
    if (!match) return;
    counters.commands++;
    publish(`${base}/pin/${match[1]}`, payload.toString('utf8'));
  });
  await client.subscribeAsync(`${base}/pin/+/set`, { qos: 1 });
  await client.publishAsync(`${base}/status`, 'online', { qos: 1 });
  await client.publishAsync(`${base}/info`, JSON.stringify({ firmwareVersion: 'sim-1.0.0', hardwareType: 'simulator' }), { qos: 1 });

  const next = options.pins?.length ? templateSignals(options.pins, seed) : deviceSignals(seed);
  const timer = setInterval(() => {
    if (!client.connected) return;
    const reading = next(Date.now());
    publish(`${base}/pin/${reading.pin}`, reading.value);
  }, 1000 / options.rate);

  return {
    async stop() {
      clearInterval(timer);
      if (client.connected) await client.publishAsync(`${base}/status`, 'offline', { qos: 1 }).catch(() => undefined);
      await client.endAsync();
    },
  };
}
