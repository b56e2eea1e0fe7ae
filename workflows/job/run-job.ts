import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { JobActivities } from '../../activities';
import type { JobInput, JobProgress } from '../../common/jobs';
import { cancelJobUpdate } from './definitions';
import { nextPollMs, pace, verdict } from './rollout';

const acts = proxyActivities<JobActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

/** Hand over to a new run past this many loop turns (each a dispatch or a look, and a wait), or when Temporal suggests it. */
export const TURNS_PER_RUN = 300;

/**
 * One job (DESIGN §13, docs/jobs.md), workflow id `job:{jobId}`: waits for `startAt`, fixes its
 * targets, sends to them at the rollout's pace, looks at its devices between sends and after, and
 * ends completed, aborted (failure ratio) or canceled. Its record in Redis is written by its
 * activities; the workflow holds only where it is (`progress`), carried over a continue-as-new.
 * Its timers are Temporal's: a restarted worker or gateway changes nothing.
 */
export async function runJob(input: JobInput): Promise<void> {
  const { jobId, rollout } = input;
  let cancelRequested = false;
  let finished = false;
  setHandler(cancelJobUpdate, async () => {
    cancelRequested = true;
    await condition(() => finished);
  });
  const finish = async (state: 'completed' | 'canceled' | 'aborted') => {
    await acts.finishJob({ jobId, state });
    finished = true;
    await condition(allHandlersFinished);
  };

  let progress: JobProgress;
  if (input.progress) progress = input.progress;
  else {
    await acts.announceJob({ jobId });
    const wait = input.startAtMs === null ? 0 : input.startAtMs - Date.now();
    if (wait > 0) await condition(() => cancelRequested, wait);
    if (cancelRequested) return finish('canceled');
    progress = { next: 0, total: (await acts.startJob({ jobId })).total };
  }

  const { batch, intervalMs, spacingMs } = pace(rollout.maxPerMinute);
  let pollMs = 1_000;
  let lastLook = 0;
  for (let turn = 0; ; turn++) {
    if (cancelRequested) return finish('canceled');
    const turnStart = Date.now();
    const allSent = progress.next >= progress.total;
    if (!allSent) {
      const count = Math.min(batch, progress.total - progress.next);
      await acts.dispatchJob({ jobId, from: progress.next, count, spacingMs });
      progress = { ...progress, next: progress.next + count };
    }
    // While sending, the devices are looked at about once a second (what an abort is judged on).
    if (allSent || progress.next >= progress.total || Date.now() - lastLook >= 1_000) {
      const look = await acts.syncJob({ jobId });
      lastLook = Date.now();
      const next = verdict(rollout, look.counts, progress.next >= progress.total, look.open);
      if (next === 'abort') return finish('aborted');
      if (next === 'complete') return finish('completed');
      if (allSent) pollMs = nextPollMs(pollMs, look.changed);
    }
    // Dispatches start `intervalMs` apart, whatever the activities took.
    const waitMs = progress.next < progress.total ? Math.max(0, intervalMs - (Date.now() - turnStart)) : pollMs;
    if (waitMs > 0) await condition(() => cancelRequested, waitMs);
    if (turn >= TURNS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      if (!cancelRequested) return continueAsNew<typeof runJob>({ ...input, progress });
    }
  }
}
