/**
 * Which patched behaviours a run of the twin has (docs/workflow-versioning.md): the shell asks
 * `patched()` for each patch once, at the start of the run, and every reducer reads the answer
 * from the run's config instead of taking a flag of its own. A new patch is a new field here.
 */
import type { TwinConfig } from '../../common/twin-contracts';

/**
 * Runs started before this patch time the heartbeat with a timer and a readLastSeen activity
 * (2 Temporal actions per heartbeat period); runs after it with the liveness watch (1), and
 * record an `offline` later than their own offline (liveness.ts).
 */
export const HEARTBEAT_WATCH_PATCH = 'twin-heartbeat-watch';

/**
 * Runs started after this patch run their steps (mirror writes and reads, rule loads, lock writes,
 * command flushes) as local activities (docs/architecture.md, "The twin's steps run in its
 * workflow task"); runs before it as activities of the task queue. The liveness watch stays an
 * activity of the task queue: its retries are the heartbeat timer.
 */
export const LOCAL_STEPS_PATCH = 'twin-local-steps';

/**
 * Runs started after this patch start their liveness watch again when a reload of their rules
 * shortens the heartbeat (a template's or the device's own), so the shorter timeout applies from
 * now; runs before it wait out the watch's current deadline, at the old timeout, first.
 */
export const HEARTBEAT_REWATCH_PATCH = 'twin-heartbeat-rewatch';

export interface TwinVersion {
  /** HEARTBEAT_WATCH_PATCH: the liveness watch times the heartbeat, and a later offline is recorded. */
  heartbeatWatch: boolean;
  /** LOCAL_STEPS_PATCH: steps run as local activities. */
  localSteps: boolean;
  /** HEARTBEAT_REWATCH_PATCH: a shortened heartbeat starts the liveness watch again. */
  heartbeatRewatch: boolean;
}

/** The version of this run, from Temporal's `patched` (asked once per patch, in this order: the history records it). */
export function twinVersion(patched: (patchId: string) => boolean): TwinVersion {
  const heartbeatWatch = patched(HEARTBEAT_WATCH_PATCH);
  const localSteps = patched(LOCAL_STEPS_PATCH);
  const heartbeatRewatch = patched(HEARTBEAT_REWATCH_PATCH);
  return { heartbeatWatch, localSteps, heartbeatRewatch };
}

/** What the reducers know of the run: the twin's config and the version the run was started under. */
export interface RunConfig extends TwinConfig {
  version: TwinVersion;
}
