import { setTimeout as delay } from 'node:timers/promises';
import { queueGauges } from './service-metrics';

export interface LagSample {
  /** Epoch ms of the reading. */
  at: number;
  /** dds_mqtt_queue_lag_seconds. */
  lag: number;
  /** dds_mqtt_queue_drops_total. */
  drops: number;
}

/** Longest a sampler runs if nobody stops it. */
const CAP_MS = 600_000;

/** Reads the node's broker-queue lag from its /metrics every `everyMs` until stopped. */
export function sampleQueueLag(metricsUrl: string, everyMs = 500) {
  const samples: LagSample[] = [];
  let running = true;
  const deadline = Date.now() + CAP_MS;
  const loop = (async () => {
    while (running && Date.now() < deadline) {
      const reading = await queueGauges(metricsUrl).catch(() => null);
      if (reading) samples.push({ at: Date.now(), ...reading });
      await delay(everyMs);
    }
  })();
  return {
    samples,
    /** Resolves once a reading taken from now on is below `seconds` (true), or false after `capMs`. */
    async below(seconds: number, capMs: number): Promise<boolean> {
      const from = Date.now();
      const until = from + capMs;
      while (Date.now() < until) {
        const last = samples[samples.length - 1];
        if (last && last.at > from && last.lag < seconds) return true;
        await delay(everyMs);
      }
      return false;
    },
    async stop(): Promise<LagSample[]> {
      running = false;
      await loop;
      return samples;
    },
  };
}
