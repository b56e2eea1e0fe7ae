/**
 * A job's rollout rules (docs/jobs.md, "Rollout and abort"), pure: how many targets each dispatch
 * sends to and how far apart, and whether a look at the devices ends the job.
 */
import type { JobCounts, JobRollout } from '../../common/jobs';

/** Targets one dispatch sends to when the rollout sets no rate. */
export const UNPACED_BATCH = 200;
/**
 * Dispatches start at least this far apart under a rate: a turn of the workflow (a dispatch
 * activity, a look and a 250 ms timer) took about 1.1 s on the loaded test machine, so a faster
 * rate is kept inside a dispatch, whose activity spaces its sends.
 */
const DISPATCH_EVERY_MS = 1_000;
/** The closest two sends of a dispatch are spaced; a faster rate sends its dispatches in groups. */
const MIN_SPACING_MS = 5;

/**
 * One dispatch's size, the time until the next and the spacing of its sends, so that sends are at
 * least 60,000 / `maxPerMinute` ms apart and no minute has more than `maxPerMinute`.
 */
export function pace(maxPerMinute: number | null): { batch: number; intervalMs: number; spacingMs: number } {
  if (maxPerMinute === null) return { batch: UNPACED_BATCH, intervalMs: 0, spacingMs: 0 };
  const spacingMs = 60_000 / maxPerMinute;
  const batch = Math.max(1, Math.floor(DISPATCH_EVERY_MS / spacingMs));
  // Below MIN_SPACING_MS apart (over 12,000 a minute) a dispatch's sends go out in groups instead.
  return {
    batch,
    intervalMs: Math.ceil(batch * spacingMs),
    spacingMs: batch > 1 && spacingMs >= MIN_SPACING_MS ? Math.floor(spacingMs) : 0,
  };
}

/** Devices whose step has ended, and of those the ones that failed (expired counts as failed). */
export function finishedAndFailed(c: JobCounts): { finished: number; failed: number } {
  return { finished: c.acknowledged + c.succeeded + c.failed + c.expired, failed: c.failed + c.expired };
}

/**
 * `abort` once failures pass `abortFailureRatio` of the finished devices, counted from
 * `minDevices` finished on; `complete` once every target was sent to and none is followed any more.
 */
export function verdict(rollout: JobRollout, counts: JobCounts, allSent: boolean, open: number): 'abort' | 'complete' | 'go-on' {
  const { finished, failed } = finishedAndFailed(counts);
  if (rollout.abortFailureRatio !== null && finished >= rollout.minDevices && failed / finished > rollout.abortFailureRatio) return 'abort';
  return allSent && open === 0 ? 'complete' : 'go-on';
}

/** How long to wait before the next look once every target was sent to: 1 s, doubling while nothing moves, up to 10 s. */
export function nextPollMs(previousMs: number, changed: boolean): number {
  return changed ? 1_000 : Math.min(10_000, previousMs * 2);
}
