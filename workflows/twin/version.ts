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

export interface TwinVersion {
  /** HEARTBEAT_WATCH_PATCH: the liveness watch times the heartbeat, and a later offline is recorded. */
  heartbeatWatch: boolean;
  /** LOCAL_STEPS_PATCH: steps run as local activities. */
  localSteps: boolean;
}

/** The version of this run, from Temporal's `patched` (asked once per patch, in this order: the history records it). */
export function twinVersion(patched: (patchId: string) => boolean): TwinVersion {
  const heartbeatWatch = patched(HEARTBEAT_WATCH_PATCH);
  const localSteps = patched(LOCAL_STEPS_PATCH);
  return { heartbeatWatch, localSteps };
}

/** What the reducers know of the run: the twin's config and the version the run was started under. */
export interface RunConfig extends TwinConfig {
  version: TwinVersion;
}
