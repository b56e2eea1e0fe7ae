import { useMemo, useState } from 'react';
import { api } from '../../api/client';
import { ProjectRooms } from '../../realtime/ProjectRooms';
import { Link, navigate } from '../../router';
import { Card, EmptyRow, ErrorLine, timeAgo, useLoad } from '../../ui/common';
import { ProjectSelect } from '../../ui/ProjectSelect';
import { JobProgress } from './JobProgress';
import { actionText, targetText } from './job-text';
import { useLiveJobs } from './use-live-jobs';

/** The jobs of the user's projects (or of one, `?projectId=`), newest first, their progress live from `job` events. */
export function JobsScreen() {
  const projects = useLoad(() => api.projects(), []);
  const [projectId, setProjectId] = useState(() => new URLSearchParams(location.search).get('projectId') ?? '');
  const shown = useMemo(() => (projectId ? [projectId] : (projects.data?.projects.map((p) => p.id) ?? [])), [projectId, projects.data]);
  const { jobs, error } = useLiveJobs(shown);
  const projectName = (id: string) => projects.data?.projects.find((p) => p.id === id)?.name ?? 'project';
  const pick = (id: string) => (setProjectId(id), navigate(id ? `/jobs?projectId=${id}` : '/jobs'));

  return (
    <div className="stack">
      <h1>Jobs</h1>
      <ProjectRooms projectIds={shown} />
      <Card title={`Jobs (${jobs?.length ?? 0})`} actions={<Link to="/fleet">Start a job from the fleet</Link>}>
        <div className="row">
          <ProjectSelect
            projects={projects.data?.projects}
            value={projectId}
            onChange={pick}
            ariaLabel="Jobs of project"
            allLabel="All projects"
          />
        </div>
        <ErrorLine error={projects.error ?? error} />
        <div className="table-scroll">
          <table data-testid="jobs-table">
            <thead>
              <tr>
                <th>Job</th>
                <th>Project</th>
                <th>Devices</th>
                <th>Progress</th>
                <th>Made</th>
              </tr>
            </thead>
            <tbody>
              {jobs?.map((job) => (
                <tr key={job.id} data-testid="job-row" data-job-id={job.id}>
                  <td>
                    <Link to={`/jobs/${job.id}`}>{actionText(job)}</Link>
                  </td>
                  <td>{projectName(job.projectId)}</td>
                  <td>{targetText(job.target)}</td>
                  <td className="job-progress-cell">
                    <JobProgress job={job} />
                  </td>
                  <td className="muted">{timeAgo(job.createdAt)}</td>
                </tr>
              ))}
              {jobs?.length === 0 && <EmptyRow columns={5} text="No jobs yet. Select devices on the Fleet page and start one there." />}
            </tbody>
          </table>
        </div>
      </Card>
    </div>
  );
}
