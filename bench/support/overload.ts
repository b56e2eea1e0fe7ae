import type { MqttClient } from 'mqtt';
import type { BrokerDrops } from './broker-sys';
import type { Pool } from '../../store/pg/pool';
import { countStoredPoints, readStoredPoints } from './history';
import { publishPaced } from './paced-publish';
import { sampleQueueLag, type LagSample } from './queue-lag';
import type { ServiceProcess } from './service-process';
import { settle } from './settle';
import { printRows, ratePerSecond } from './stats';

/** The node has caught up once its broker-queue lag reads below this. */
const DRAINED_S = 0.5;
/** Longest the bench waits for the node to catch up after the last publish. */
const DRAIN_CAP_MS = 180_000;

export interface OverloadRun {
  label: string;
  service: ServiceProcess;
  fleet: readonly MqttClient[];
  /** The history store's PostgreSQL, where stored values are counted. */
  pool: Pool;
  deviceIds: readonly string[];
  topicRoot: string;
  pin: string;
  rate: number;
  seconds: number;
  /** The broker's own dropped-messages counter, read before and after. */
  brokerDrops: BrokerDrops;
}

export interface OverloadResult {
  acked: number;
  stored: number;
  /** Acknowledged to the devices by the broker and never stored. */
  dropped: number;
  /** Values the node stored a second, first to last: its saturation rate when it was behind throughout. */
  storedRate: number;
  publishSeconds: number;
  peakLag: number;
  /** From the last publish until the lag read below DRAINED_S; NaN when it never did within DRAIN_CAP_MS. */
  drainSeconds: number;
}

const pct = (part: number, whole: number): string => (whole > 0 ? `${((part / whole) * 100).toFixed(1)} %` : '-');

/** The lag read every `stepS` seconds from `from` (the first reading at or after each step). */
function timeline(samples: readonly LagSample[], from: number, stepS: number): string {
  const points: string[] = [];
  for (let t = 0; ; t += stepS) {
    const reading = samples.find((s) => s.at >= from + t * 1000);
    if (!reading) break;
    points.push(`${t}s ${reading.lag.toFixed(1)}`);
  }
  return points.join(' · ');
}

/**
 * Publishes `rate` values a second (QoS 1) for `seconds` to one service node, waits until its
 * broker-queue lag is back under 0.5 s, and counts what the devices were promised (PUBACK)
 * against what was stored. Values are on their own pin, so each run counts only its own.
 */
export async function overloadPhase(run: OverloadRun): Promise<OverloadResult> {
  const topics = run.deviceIds.map((id) => `${run.topicRoot}/${id}/pin/${run.pin}`);
  const brokerBefore = await run.brokerDrops.settled();
  const lag = sampleQueueLag(run.service.metricsUrl);
  const startedAt = Date.now();
  const outcome = await publishPaced(run.fleet, topics, run.rate, run.seconds);
  const publishedAt = startedAt + outcome.seconds * 1000;
  const drained = await lag.below(DRAINED_S, DRAIN_CAP_MS);
  const stored = await settle(() => countStoredPoints(run.pool, run.deviceIds, run.pin), outcome.acked, 3000, 30_000);
  const samples = await lag.stop();
  const brokerAfter = await run.brokerDrops.settled();

  const storedRate = ratePerSecond((await readStoredPoints(run.pool, run.deviceIds, run.pin)).map((p) => p.storedAt));
  const peak = samples.reduce((max, s) => Math.max(max, s.lag), 0);
  const drainedAt = samples.find((s) => s.at > publishedAt && s.lag < DRAINED_S)?.at;
  const drainSeconds = drained && drainedAt !== undefined ? (drainedAt - publishedAt) / 1000 : NaN;
  const probeDrops = (samples[samples.length - 1]?.drops ?? NaN) - (samples[0]?.drops ?? NaN);
  const dropped = outcome.acked - stored;
  const achieved = outcome.attempted / outcome.seconds;
  printRows(`\n${run.label}: ${run.rate} values/s offered for ${run.seconds} s on pin ${run.pin}`, [
    ['published', `${outcome.attempted} in ${outcome.seconds.toFixed(1)} s (${achieved.toFixed(0)}/s achieved)`],
    [
      'acknowledged to the devices',
      `${outcome.acked}${outcome.failed || outcome.unanswered ? ` (${outcome.failed} failed, ${outcome.unanswered} unanswered)` : ''}`,
    ],
    ['stored, after the drain', String(stored)],
    ['dropped by the broker', `${dropped} (${pct(dropped, outcome.acked)} of acknowledged)`],
    [
      "broker's own $SYS dropped count",
      Number.isFinite(brokerAfter - brokerBefore)
        ? `+${brokerAfter - brokerBefore}`
        : `${brokerBefore} → ${brokerAfter} (NaN: none published)`,
    ],
    ['node stored', `${storedRate.toFixed(0)} values/s (offered / stored ${(achieved / storedRate).toFixed(2)}×)`],
    [
      'dds_mqtt_queue_lag_seconds',
      `peak ${peak.toFixed(1)} s; under ${DRAINED_S} s again ${Number.isFinite(drainSeconds) ? `${drainSeconds.toFixed(1)} s after the last publish` : `not within ${DRAIN_CAP_MS / 1000} s`}`,
    ],
    ['  every 5 s from the first publish', timeline(samples, startedAt, 5)],
    ['dds_mqtt_queue_drops_total', `+${probeDrops} (probes the broker acknowledged and dropped)`],
  ]);
  return { acked: outcome.acked, stored, dropped, storedRate, publishSeconds: outcome.seconds, peakLag: peak, drainSeconds };
}
