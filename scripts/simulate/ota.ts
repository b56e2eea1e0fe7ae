import { z } from 'zod';
import { INFO_FIELD_MAX_LENGTH } from '../../common/device-info';
import type { OtaReport } from '../../common/jobs';
import { downloadImage } from './firmware-download';

/** An update offered on `{root}/{deviceId}/ota` (docs/jobs.md, DESIGN §13). */
export const otaOffer = z.object({
  jobId: z.string().min(1).max(100),
  firmwareId: z.string().min(1).max(100),
  version: z.string().min(1).max(INFO_FIELD_MAX_LENGTH),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex'),
  url: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }),
});

export type OtaOffer = z.infer<typeof otaOffer>;

/** Updates the devices of a run ended: done (on the new version) or failed. */
export interface OtaCounters {
  updated: number;
  updateFailed: number;
}

/** What the agent needs of its device's MQTT session. */
export interface OtaDevice {
  name: string;
  /** Publishes on the device's `ota/status`. */
  report(report: OtaReport): Promise<void>;
  /** Publishes the device's `info` with this firmware version (as it does after a restart). */
  announce(version: string): Promise<void>;
  /** One line per step of an update. */
  log(line: string): void;
}

/**
 * Whether the `index`-th device (from 0) of a run is one of the `share` whose updates fail: every
 * 1/share-th device, so ⌊share × N⌋ of N, the same ones on every run with the same devices.
 */
export function failsUpdate(index: number, share: number): boolean {
  const upTo = (n: number) => Math.floor(n * share + 1e-9);
  return upTo(index + 1) > upTo(index);
}

function offerOf(payload: Buffer): { offer: OtaOffer } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(payload.toString('utf8'));
  } catch {
    return { error: 'not JSON' };
  }
  const parsed = otaOffer.safeParse(json);
  if (parsed.success) return { offer: parsed.data };
  return { error: parsed.error.issues.map((i) => `${i.path.join('.') || 'offer'}: ${i.message}`).join('; ') };
}

/**
 * A device's side of the OTA handshake: on an offer it reports `downloading`, downloads the image
 * and checks its size and SHA-256, reports `installing`, then restarts on the new version (`info`)
 * and reports `done`; a mismatch, or a device told to `fail`, reports `failed` with the error. One
 * update at a time: a repeat of the offer in hand is ignored, another job's offer is refused as busy.
 * A malformed offer is logged and ignored.
 */
export function otaAgent(device: OtaDevice, firmware: string, fail: boolean, counters: OtaCounters) {
  let version = firmware;
  let busy: string | null = null;
  const stopped = new AbortController();
  const log = (jobId: string, line: string) => device.log(`${device.name} OTA job ${jobId}: ${line}`);

  async function update(offer: OtaOffer): Promise<void> {
    const { jobId } = offer;
    const failed = async (error: string) => {
      counters.updateFailed++;
      log(jobId, `failed: ${error}`);
      await device.report({ jobId, state: 'failed', error });
    };
    if (offer.version === version) {
      log(jobId, `already on ${version}: done`);
      await device.announce(version);
      await device.report({ jobId, state: 'done' });
      return;
    }
    log(jobId, `offered ${offer.version} (${offer.size} bytes): downloading`);
    await device.report({ jobId, state: 'downloading', progress: 0 });
    const progress = (percent: number) => void device.report({ jobId, state: 'downloading', progress: percent }).catch(() => undefined);
    const mismatch = await downloadImage(offer.url, offer, progress, stopped.signal);
    if (mismatch) return failed(mismatch);
    if (fail) return failed('install failed: flash write error (simulated, --ota-fail)');
    log(jobId, `${offer.size} bytes, sha256 verified: installing`);
    await device.report({ jobId, state: 'installing', progress: 100 });
    version = offer.version;
    await device.announce(version);
    await device.report({ jobId, state: 'done' });
    counters.updated++;
    log(jobId, `restarted on ${version}: done`);
  }

  function start(offer: OtaOffer): void {
    busy = offer.jobId;
    update(offer)
      .catch((err: unknown) => {
        if (!stopped.signal.aborted) log(offer.jobId, `stopped: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => {
        busy = null;
      });
  }

  return {
    /** The firmware the device runs: `firmware` until an update is done. */
    version: () => version,
    /** An offer arrived on the device's `ota` topic. */
    offer(payload: Buffer): void {
      const read = offerOf(payload);
      if ('error' in read) {
        device.log(`${device.name} OTA offer ignored, malformed: ${read.error}`.slice(0, 500));
      } else if (busy === read.offer.jobId) {
        log(busy, 'offered again while updating: ignored');
      } else if (busy) {
        log(read.offer.jobId, `refused: busy with job ${busy}`);
        void device.report({ jobId: read.offer.jobId, state: 'failed', error: `busy with job ${busy}` }).catch(() => undefined);
      } else {
        start(read.offer);
      }
    },
    /** Ends an update in progress (the device stops). */
    stop(): void {
      stopped.abort();
    },
  };
}
