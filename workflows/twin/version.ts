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

/**
 * Runs started after this patch start the new liveness watch in the step that found the heartbeat
 * shortened, right after cancelling the old one; runs before it start it from the main loop once
 * the cancelled watch has ended. That end comes in a later activation, which a replay may batch
 * with other local activities' results differently, so the new watch could take another command
 * sequence number there than in the run (a nondeterminism error when a signal and a rulesChanged
 * Update shared a workflow task: seen in bench/fleet-rules).
 */
export const REWATCH_AT_ONCE_PATCH = 'twin-rewatch-at-once';

export interface TwinVersion {
  /** HEARTBEAT_WATCH_PATCH: the liveness watch times the heartbeat, and a later offline is recorded. */
  heartbeatWatch: boolean;
  /** LOCAL_STEPS_PATCH: steps run as local activities. */
  localSteps: boolean;
  /** HEARTBEAT_REWATCH_PATCH: a shortened heartbeat starts the liveness watch again. */
  heartbeatRewatch: boolean;
  /** REWATCH_AT_ONCE_PATCH: the step that cancels an outdated watch starts the next one. */
  rewatchAtOnce: boolean;
}

/** The version of this run, from Temporal's `patched` (asked once per patch, in this order: the history records it). */
export function twinVersion(patched: (patchId: string) => boolean): TwinVersion {
  const heartbeatWatch = patched(HEARTBEAT_WATCH_PATCH);
  const localSteps = patched(LOCAL_STEPS_PATCH);
  const heartbeatRewatch = patched(HEARTBEAT_REWATCH_PATCH);
  const rewatchAtOnce = patched(REWATCH_AT_ONCE_PATCH);
  return { heartbeatWatch, localSteps, heartbeatRewatch, rewatchAtOnce };
}

/** What the reducers know of the run: the twin's config and the version the run was started under. */
export interface RunConfig extends TwinConfig {
  version: TwinVersion;
}
