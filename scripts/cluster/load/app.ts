/**
 * What an app does through the balancer during a scenario: writes toward the devices (each a
 * command with a receipt, docs/commands.md) and reads of the device list (the status sampler).
 */
import type { Api } from './api';

export interface WriteRecord {
  deviceId: string;
  value: string;
  at: number;
  status: number | 'error';
  commandId: string | null;
  /** 503's dependency, or the error message. */
  detail: string | null;
}

/** Every `everyMs`, one write of a fresh value to V10 of each target device. */
export class AppWriter {
  readonly writes: WriteRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private n = 0;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly api: Api,
    private readonly deviceIds: readonly string[],
    private readonly everyMs = 2000,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.n++;
      for (const deviceId of this.deviceIds) {
        const job = this.write(deviceId, `c${this.n}`);
        this.inFlight.add(job);
        void job.finally(() => this.inFlight.delete(job));
      }
    }, this.everyMs);
  }

  private async write(deviceId: string, value: string): Promise<void> {
    const record: WriteRecord = { deviceId, value, at: Date.now(), status: 'error', commandId: null, detail: null };
    this.writes.push(record);
    try {
      const answer = await this.api.call<{ commandId: string | null }>('POST', `/data/${deviceId}/10`, { value }, undefined, 5000);
      record.status = answer.status;
      record.commandId = answer.body?.data?.commandId ?? null;
      if (answer.status >= 400) {
        const details = answer.body?.error?.details;
        const dependency = Array.isArray(details) ? (details as { problem?: string }[]).map((d) => d.problem).join(',') : '';
        record.detail = `${answer.body?.error?.code ?? ''}${dependency ? ` ${dependency}` : ''}`;
      }
    } catch (e) {
      record.detail = (e as Error).message;
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }
}

export interface StatusSample {
  at: number;
  statuses: Map<string, string>;
  /** disconnectReason of the devices that are offline. */
  reasons: Map<string, string>;
}

/** Reads every device's status once a second (GET /devices?projectId=), as a dashboard would. */
export class StatusSampler {
  readonly samples: StatusSample[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly api: Api,
    private readonly projectId: string,
  ) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        const started = Date.now();
        try {
          const answer = await this.api.call<{ devices: { id: string; status: string; disconnectReason: string | null }[] }>(
            'GET',
            `/devices?projectId=${this.projectId}&limit=100`,
            undefined,
            undefined,
            2000,
          );
          if (answer.status === 200 && answer.body?.data) {
            const devices = answer.body.data.devices;
            this.samples.push({
              at: Date.now(),
              statuses: new Map(devices.map((d) => [d.id, d.status])),
              reasons: new Map(devices.flatMap((d) => (d.disconnectReason ? [[d.id, d.disconnectReason]] : []))),
            });
          }
        } catch {
          // a sample lost in a fault: the next one counts
        }
        await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}
