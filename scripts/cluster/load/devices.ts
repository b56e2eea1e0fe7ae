/**
 * Simulated devices on the broker's address, each on its own credentials, recording what the
 * broker acknowledged (QoS 1 PUBACK) and when:
 *   V1  numbered values 1, 2, 3 … at a steady rate (the "stored exactly once" check);
 *   V2  a square wave across a threshold rule, one value at a time (each sent once the broker
 *       acknowledged the previous one);
 *   V3  bursts with silences longer than a no_data rule's duration between them;
 * (what the rules should have done is judged from the order the service stored V2 and V3 in,
 * checks/rules.ts: the broker's PUBACK to a device does not order the gateways' handling);
 *   commands on `…/pin/+/set` are echoed on the pin after `echoMs` (a device applying it), which
 *   acknowledges them (docs/commands.md).
 * A `quiet` device stops sending at the fault (truth: offline after its heartbeat timeout), a
 * `leaver` drops its connection (truth: offline by its Last Will).
 */
import mqtt, { type MqttClient } from 'mqtt';
import { LAST_WILL_PROPERTY } from '../../../common/mqtt-topics';
import { sleep } from '../wait';

export type DeviceKind = 'steady' | 'quiet' | 'leaver';

export const WAVE = { threshold: 500, periodMs: 2500 } as const;
export const BURSTS = { values: 2, spacingMs: 1000, silenceMs: 10_000, noDataS: 4 } as const;

export interface SentValue {
  publishedAt: number;
  ackedAt: number | null;
  /** It was in flight when the device's connection closed: MQTT.js sends it again (QoS 1 may then store it twice). */
  crossedReconnect: boolean;
}

export interface DeviceRecord {
  id: string;
  token: string;
  kind: DeviceKind;
  v1: Map<number, SentValue>;
  connection: Array<{ at: number; up: boolean }>;
  /** When it stopped sending (quiet) or left (leaver). */
  changedAt: number | null;
  lastAckAt: number;
  echoes: number;
  errors: number;
}

export class SimulatedDevice {
  readonly record: DeviceRecord;
  private client: MqttClient | null = null;
  private running = false;
  /** Echoes commands and announces itself on reconnect: until it goes quiet, leaves or is closed. */
  private present = true;
  private v1Timer: NodeJS.Timeout | null = null;

  constructor(
    id: string,
    token: string,
    kind: DeviceKind,
    private readonly options: { brokerUrl: string; topicRoot: string; rate: number; echoMs: number },
  ) {
    this.record = { id, token, kind, v1: new Map(), connection: [], changedAt: null, lastAckAt: 0, echoes: 0, errors: 0 };
  }

  private get base(): string {
    return `${this.options.topicRoot}/${this.record.id}`;
  }

  async connect(): Promise<void> {
    const client = await mqtt.connectAsync(this.options.brokerUrl, {
      username: this.record.id,
      password: this.record.token,
      clientId: `cluster-${this.record.id}`,
      protocolVersion: 5,
      connectTimeout: 5000,
      reconnectPeriod: 1000,
      will: {
        topic: `${this.base}/status`,
        payload: Buffer.from('offline'),
        qos: 1,
        retain: false,
        properties: { userProperties: { [LAST_WILL_PROPERTY.name]: LAST_WILL_PROPERTY.value } },
      },
    });
    this.client = client;
    this.record.connection.push({ at: Date.now(), up: true });
    client.on('error', () => void this.record.errors++);
    client.on('close', () => {
      const at = Date.now();
      this.record.connection.push({ at, up: false });
      for (const sent of this.record.v1.values()) if (sent.ackedAt === null) sent.crossedReconnect = true;
    });
    client.on('connect', () => {
      this.record.connection.push({ at: Date.now(), up: true });
      if (this.present) void this.publish(`${this.base}/status`, 'online');
    });
    client.on('message', (topic, payload) => {
      const match = /\/pin\/([^/]+)\/set$/.exec(topic);
      if (!match || !this.present) return;
      this.record.echoes++;
      const echo = (): void => void this.publish(`${this.base}/pin/${match[1]}`, payload.toString('utf8'));
      if (this.options.echoMs > 0) setTimeout(echo, this.options.echoMs);
      else echo();
    });
    await client.subscribeAsync(`${this.base}/pin/+/set`, { qos: 1 });
  }

  private publish(topic: string, value: string): Promise<number | null> {
    const client = this.client;
    if (!client) return Promise.resolve(null);
    return client.publishAsync(topic, value, { qos: 1 }).then(
      () => {
        const at = Date.now();
        this.record.lastAckAt = Math.max(this.record.lastAckAt, at);
        return at;
      },
      () => {
        this.record.errors++;
        return null;
      },
    );
  }

  /** Starts sending: V1 always; the wave and the bursts for devices that carry rules. */
  start(withRules: boolean): void {
    this.running = true;
    void this.publish(`${this.base}/status`, 'online');
    let n = 0;
    this.v1Timer = setInterval(() => {
      const value = ++n;
      const sent: SentValue = { publishedAt: Date.now(), ackedAt: null, crossedReconnect: false };
      this.record.v1.set(value, sent);
      void this.publish(`${this.base}/pin/V1`, String(value)).then((at) => (sent.ackedAt = at));
    }, 1000 / this.options.rate);
    if (withRules) {
      void this.wave();
      void this.bursts();
    }
  }

  private async wave(): Promise<void> {
    for (let k = 1; this.running; k++) {
      const value = k % 2 === 0 ? 1000 + k : k;
      await this.publish(`${this.base}/pin/V2`, String(value));
      await sleep(WAVE.periodMs / 2);
    }
  }

  private async bursts(): Promise<void> {
    let m = 0;
    while (this.running) {
      for (let i = 0; i < BURSTS.values && this.running; i++) {
        const value = ++m;
        await this.publish(`${this.base}/pin/V3`, String(value));
        if (i < BURSTS.values - 1) await sleep(BURSTS.spacingMs);
      }
      const until = Date.now() + BURSTS.silenceMs;
      while (this.running && Date.now() < until) await sleep(200);
    }
  }

  /** Stops sending values (commands are still echoed until close()). */
  stopSending(): void {
    this.running = false;
    if (this.v1Timer) clearInterval(this.v1Timer);
    this.v1Timer = null;
  }

  /** The quiet device: silent from now on, still connected. */
  goQuiet(): void {
    this.stopSending();
    this.present = false;
    this.record.changedAt = Date.now();
  }

  /** The leaver: its connection cut without a DISCONNECT, so the broker sends its Last Will. */
  async leave(): Promise<void> {
    this.stopSending();
    this.present = false;
    this.record.changedAt = Date.now();
    await this.client?.endAsync(true).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.stopSending();
    this.present = false;
    await this.client?.endAsync(true).catch(() => undefined);
  }
}
