import type { Job } from '../../api/types';
import { ProgressBar } from '../../ui/ProgressBar';
import { finishedCount, stateCounts } from './job-text';

/** A job's state, its devices done of its total as a bar, and its devices per state (those with any). */
export function JobProgress({ job }: { job: Job }) {
  const done = finishedCount(job);
  return (
    <div className="job-progress" data-testid="job-progress" data-state={job.state}>
      <div className="row tight">
        <span className={`job-state job-${job.state}`} data-testid="job-state">
          {job.state}
        </span>
        <span className="muted" data-testid="job-done">
          {done} of {job.total} done
        </span>
      </div>
      <ProgressBar value={done} max={job.total} label={`${done} of ${job.total} devices done`} full={job.state === 'aborted'} />
      <ul className="job-counts">
        {stateCounts(job)
          .filter(([, n]) => n > 0)
          .map(([state, n]) => (
            <li key={state} data-testid={`job-count-${state}`}>
              {state} {n}
            </li>
          ))}
      </ul>
    </div>
  );
}
