import { Link } from '../router';

const TITLES = { page: 'Page', project: 'Project', device: 'Device', template: 'Template', pin: 'Pin', job: 'Job' } as const;

/** What a missing page, project, device, template, pin or job shows: what is missing, why it may be, and the way back. */
export function NotFound({ what = 'page' }: { what?: keyof typeof TITLES }) {
  return (
    <div className="card not-found" data-testid="not-found">
      <h1>{TITLES[what]} not found</h1>
      <p className="muted">
        {what === 'page'
          ? `Nothing is at ${location.pathname}.`
          : what === 'pin'
            ? 'Pins are V0–V255, D0–D99 and A0–A15.'
            : `It may have been deleted, or it is in a project you are not a member of.`}
      </p>
      <p>
        <Link to="/projects">← Back to your projects</Link>
      </p>
    </div>
  );
}
