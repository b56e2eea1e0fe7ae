import { useMemo, useState } from 'react';
import { api } from '../../api/client';
import type { Job, JobState } from '../../api/types';
import { useSocket, useSocketEvent } from '../../realtime/socket';
import { useLoad } from '../../ui/common';
import { finishedCount } from './job-text';

const STATE_ORDER: Record<JobState, number> = { scheduled: 0, running: 1, completed: 2, canceled: 2, aborted: 2 };
const sent = (job: Job): number => Object.values(job.counts).reduce((a, b) => a + b, 0);

/**
 * The further along of two copies of a job (a read and a `job` event may arrive in either order):
 * a job's state only advances, and its devices sent to and done only grow.
 */
export function laterOf(a: Job, b: Job): Job {
  const rank = (j: Job) => [STATE_ORDER[j.state], finishedCount(j), sent(j)];
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return (ra[i] ?? 0) > (rb[i] ?? 0) ? a : b;
  return b;
}

/** The `job` events of the projects shown so far, by job id (the screen joins their rooms). */
function useJobEvents(accept: (job: Job) => boolean): ReadonlyMap<string, Job> {
  const [events, setEvents] = useState<ReadonlyMap<string, Job>>(new Map());
  useSocketEvent('job', (job) => {
    if (accept(job)) setEvents((m) => new Map(m).set(job.id, m.has(job.id) ? laterOf(m.get(job.id) as Job, job) : job));
  });
  return events;
}

/** The jobs of some projects, newest first, kept live by `job` events (reread on every reconnect). */
export function useLiveJobs(projectIds: readonly string[]): { jobs: Job[] | undefined; error: string | null } {
  const { epoch } = useSocket();
  const key = projectIds.join(',');
  const loaded = useLoad(async () => (await Promise.all(projectIds.map((id) => api.jobs(id)))).flatMap((r) => r.jobs), [key, epoch]);
  const events = useJobEvents((job) => projectIds.includes(job.projectId));
  const jobs = useMemo(() => {
    if (!loaded.data) return undefined;
    const byId = new Map(loaded.data.map((j) => [j.id, j]));
    for (const [id, job] of events)
      if (projectIds.includes(job.projectId)) byId.set(id, byId.has(id) ? laterOf(byId.get(id) as Job, job) : job);
    return [...byId.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }, [loaded.data, events, projectIds]);
  return { jobs, error: loaded.error };
}

/** One job, kept live by its `job` events. */
export function useLiveJob(jobId: string): { job: Job | undefined; error: string | null; notFound: boolean; update: (job: Job) => void } {
  const { epoch } = useSocket();
  const loaded = useLoad(() => api.job(jobId), [jobId, epoch]);
  const [own, setOwn] = useState<Job | null>(null);
  const events = useJobEvents((job) => job.id === jobId);
  const job = [loaded.data, events.get(jobId), own ?? undefined]
    .filter((j): j is Job => j?.id === jobId)
    .reduce<Job | undefined>((a, b) => (a ? laterOf(a, b) : b), undefined);
  return { job, error: loaded.error, notFound: loaded.notFound, update: setOwn };
}
