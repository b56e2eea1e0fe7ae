import { api } from '../api/client';
import { useRoom } from '../realtime/socket';
import { Link } from '../router';
import { ErrorLine, useLoad } from '../ui/common';
import { DashboardView } from './dashboard/DashboardView';
import { DevicesView } from './devices/DevicesView';
import { ImportView } from './import/ImportView';
import { MembersView } from './MembersView';
import { NotFound } from './NotFound';
import { ProjectSettings } from './ProjectSettings';
import { AlarmsView } from './AlarmsView';
import { RulesView } from './rules/RulesView';
import { TemplatesView } from './templates/TemplatesView';

const TABS: Array<[string, string]> = [
  ['dashboard', 'Dashboard'],
  ['devices', 'Devices'],
  ['import', 'Import'],
  ['templates', 'Templates'],
  ['rules', 'Rules'],
  ['alarms', 'Alarms'],
  ['members', 'Members'],
  ['settings', 'Settings'],
];

export function ProjectScreen({ projectId, tab }: { projectId: string; tab: string }) {
  const { data: project, error, notFound, reload } = useLoad(() => api.project(projectId), [projectId]);
  useRoom({ projectId });
  if (notFound) return <NotFound what="project" />;
  if (error) return <ErrorLine error={error} />;
  if (!project) return <p className="muted">Loading…</p>;
  const base = `/projects/${projectId}`;
  return (
    <div className="stack">
      <div className="title-row">
        <h1 data-testid="project-name">{project.name}</h1>
        <span className={`role role-${project.role}`}>{project.role}</span>
      </div>
      <nav className="tabs">
        {TABS.map(([key, label]) => (
          <Link key={key} to={key === 'dashboard' ? base : `${base}/${key}`} className={tab === key ? 'active' : ''}>
            {label}
          </Link>
        ))}
      </nav>
      {tab === 'dashboard' && <DashboardView project={project} />}
      {tab === 'devices' && <DevicesView project={project} />}
      {tab === 'import' && <ImportView project={project} />}
      {tab === 'templates' && <TemplatesView project={project} />}
      {tab === 'rules' && <RulesView project={project} />}
      {tab === 'alarms' && <AlarmsView project={project} />}
      {tab === 'members' && <MembersView project={project} />}
      {tab === 'settings' && <ProjectSettings project={project} onChange={reload} />}
    </div>
  );
}
