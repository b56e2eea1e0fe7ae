import { api } from '../../api/client';
import { useRoom } from '../../realtime/socket';
import { Link } from '../../router';
import { Card, ErrorLine, timeAgo, useAction, useLoad } from '../../ui/common';
import { NotFound } from '../NotFound';
import { JobDevicesTable } from './JobDevicesTable';
import { JobProgress } from './JobProgress';
import { actionText, jobOpen, targetText } from './job-text';
import { useLiveJob } from './use-live-jobs';

/** One job: what it does, its live progress, its devices with their receipts, and Cancel for editors while it runs. */
export function JobScreen({ jobId }: { jobId: string }) {
  const { job, error, notFound, update } = useLiveJob(jobId);
  const projectId = job?.projectId ?? '';
  const project = useLoad(async () => (projectId ? api.project(projectId) : null), [projectId]);
  const images = useLoad(
    async () => (job?.action.type === 'ota' ? (await api.firmware(projectId)).firmware : []),
    [projectId, job?.action.type],
  );
  useRoom(projectId ? { projectId } : null);
  const [run, cancelError, busy] = useAction();

  if (notFound) return <NotFound what="job" />;
  if (!job) return error ? <ErrorLine error={error} /> : <p className="muted">Loading…</p>;
  const canCancel = jobOpen(job) && Boolean(project.data && project.data.role !== 'viewer');

  return (
    <div className="stack">
      <div className="title-row">
        <h1 data-testid="job-title">{actionText(job, images.data)}</h1>
        <Link to={`/jobs?projectId=${job.projectId}`}>{project.data?.name ?? 'project'}'s jobs</Link>
      </div>
      <Card
        title="Progress"
        actions={
          canCancel && (
            <button type="button" disabled={busy} onClick={() => void run(async () => update(await api.cancelJob(job.id)))}>
              Cancel job
            </button>
          )
        }
      >
        <JobProgress job={job} />
        <dl className="facts">
          <dt>Devices</dt>
          <dd>{targetText(job.target)}</dd>
          <dt>Made</dt>
          <dd>{timeAgo(job.createdAt)}</dd>
          <dt>Started</dt>
          <dd>{job.startedAt ? timeAgo(job.startedAt) : 'not yet'}</dd>
          <dt>Ended</dt>
          <dd>{job.finishedAt ? timeAgo(job.finishedAt) : 'not yet'}</dd>
        </dl>
        <ErrorLine error={cancelError} />
      </Card>
      <Card title="Devices">
        <JobDevicesTable job={job} version={`${job.state}:${JSON.stringify(job.counts)}`} />
      </Card>
    </div>
  );
}
