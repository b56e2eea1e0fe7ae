/**
 * The steady load of one scenario, all through the public interfaces: an account of its own
 * (registered through the balancer), a project, devices with their rules, the devices on the
 * broker, Socket.IO clients and an app writing through the balancer, and a status sampler.
 */
import { Api } from './api';
import { AppWriter, StatusSampler } from './app';
import { BURSTS, SimulatedDevice, WAVE } from './devices';
import { Watcher, type WatcherReport } from './watchers';

export interface LoadOptions {
  /** Devices that publish throughout (and carry the rules); one quiet and one leaver come on top. */
  devices: number;
  /** V1 values per second per device. */
  rate: number;
  watchers: number;
  /** How long a device takes to echo a command it received (0: at once). */
  echoMs: number;
}

export const DEFAULT_LOAD: LoadOptions = { devices: 6, rate: 3, watchers: 3, echoMs: 100 };
/** The service's default topic root (MQTT_TOPIC_ROOT is not set in docker-compose.yml). */
const TOPIC_ROOT = 'dds';

export interface RuleIds {
  threshold: string;
  noData: string;
}

export class Load {
  readonly startedAt = Date.now();
  faultAt: number | null = null;
  stoppedAt: number | null = null;
  readonly rules = new Map<string, RuleIds>();
  private watcherReports: WatcherReport[] = [];

  private constructor(
    readonly api: Api,
    readonly projectId: string,
    readonly devices: SimulatedDevice[],
    readonly watchers: Watcher[],
    readonly writer: AppWriter,
    readonly sampler: StatusSampler,
  ) {}

  static async start(
    urls: { balancer: string; broker: string; adminToken: string },
    label: string,
    options: LoadOptions,
    say: (line: string) => void,
  ): Promise<Load> {
    const api = new Api(urls.balancer, urls.adminToken);
    const { projectId } = await api.account(label);
    const kinds = [...Array.from({ length: options.devices }, () => 'steady' as const), 'quiet' as const, 'leaver' as const];
    const devices: SimulatedDevice[] = [];
    for (const [i, kind] of kinds.entries()) {
      const created = await api.device(projectId, `${kind}-${i + 1}`);
      devices.push(
        new SimulatedDevice(created.id, created.token, kind, {
          brokerUrl: urls.broker,
          topicRoot: TOPIC_ROOT,
          rate: options.rate,
          echoMs: options.echoMs,
        }),
      );
    }
    const steady = devices.filter((d) => d.record.kind === 'steady');
    const watchers = Array.from(
      { length: options.watchers },
      (_, i) => new Watcher(`client-${i + 1}`, urls.balancer, api.token, projectId),
    );
    const load = new Load(
      api,
      projectId,
      devices,
      watchers,
      new AppWriter(
        api,
        steady.map((d) => d.record.id),
      ),
      new StatusSampler(api, projectId),
    );
    for (const device of steady) {
      const deviceId = device.record.id;
      const threshold = await api.rule({
        projectId,
        deviceId,
        condition: 'gt',
        pin: 2,
        threshold: WAVE.threshold,
        message: 'high {value}',
      });
      const noData = await api.rule({
        projectId,
        deviceId,
        condition: 'no_data',
        pin: 3,
        duration: BURSTS.noDataS,
        message: 'silent after {value}',
      });
      load.rules.set(deviceId, { threshold, noData });
    }
    await Promise.all(devices.map((d) => d.connect()));
    const deadline = Date.now() + 30_000;
    while (!watchers.every((w) => w.isLive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if (!watchers.every((w) => w.isLive)) say('warning: not every Socket.IO client was live within 30 s');
    for (const device of devices) device.start(device.record.kind === 'steady');
    load.writer.start();
    load.sampler.start();
    say(
      `load: ${devices.length} devices (${steady.length} steady, 1 quiet, 1 leaver) at ${options.rate} V1 values/s each, ${watchers.length} Socket.IO clients, app writes every 2 s`,
    );
    return load;
  }

  /** At the fault: the quiet device falls silent, the leaver drops off (its Last Will). */
  async fault(): Promise<void> {
    this.faultAt = Date.now();
    for (const device of this.devices) {
      if (device.record.kind === 'quiet') device.goQuiet();
      if (device.record.kind === 'leaver') await device.leave();
    }
  }

  /** Stops every sender (devices still echo commands); the sampler stops with it. */
  async stopSending(): Promise<void> {
    this.stoppedAt = Date.now();
    for (const device of this.devices) device.stopSending();
    await Promise.all([this.writer.stop(), this.sampler.stop()]);
  }

  async finishWatchers(): Promise<WatcherReport[]> {
    this.watcherReports = await Promise.all(this.watchers.map((w) => w.finish()));
    return this.watcherReports;
  }

  async close(): Promise<void> {
    await Promise.all(this.devices.map((d) => d.close()));
  }
}
