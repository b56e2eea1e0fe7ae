import type { Project } from '../../api/types';
import { TemplateSelect } from '../../templates/TemplateSelect';
import { useTemplates } from '../../templates/use-templates';
import { ProjectSelect } from '../../ui/ProjectSelect';
import type { FleetFilters } from './fleet-filters';

/** The fleet filters (DESIGN §13): project (or all), name, tag, template (of one project), status, firmware, last seen. */
export function FleetFilterBar(props: {
  projects: readonly Project[] | undefined;
  filters: FleetFilters;
  onChange: (change: Partial<FleetFilters>) => void;
}) {
  const { filters, onChange } = props;
  const { templates } = useTemplates(filters.projectId || undefined);
  return (
    <div className="row filters" data-testid="fleet-filters">
      <ProjectSelect
        projects={props.projects}
        value={filters.projectId}
        onChange={(projectId) => onChange({ projectId, templateId: '' })}
        ariaLabel="Project filter"
        allLabel="All projects"
      />
      <input
        type="search"
        aria-label="Name contains"
        placeholder="Name contains"
        value={filters.q}
        onChange={(e) => onChange({ q: e.target.value })}
      />
      <input aria-label="Tag filter" placeholder="Tag" value={filters.tag} onChange={(e) => onChange({ tag: e.target.value })} />
      {filters.projectId && (templates?.length ?? 0) > 0 && (
        <TemplateSelect
          templates={templates}
          value={filters.templateId}
          onChange={(templateId) => onChange({ templateId })}
          ariaLabel="Template filter"
          noneLabel="Any template"
        />
      )}
      <select
        aria-label="Status filter"
        value={filters.status}
        onChange={(e) => onChange({ status: e.target.value as FleetFilters['status'] })}
      >
        <option value="">Online and offline</option>
        <option value="online">Online</option>
        <option value="offline">Offline</option>
      </select>
      <input
        aria-label="Firmware version"
        placeholder="Firmware ="
        value={filters.firmwareVersion}
        onChange={(e) => onChange({ firmwareVersion: e.target.value })}
      />
      <input
        aria-label="Firmware below"
        placeholder="Firmware below"
        title="Devices whose firmware is a semantic version below this one, e.g. 2.0.0"
        value={filters.firmwareVersionLt}
        onChange={(e) => onChange({ firmwareVersionLt: e.target.value })}
      />
      <label className="inline">
        Seen after
        <input
          type="datetime-local"
          aria-label="Last seen after"
          value={filters.lastSeenAfter}
          onChange={(e) => onChange({ lastSeenAfter: e.target.value })}
        />
      </label>
      <label className="inline">
        Seen before
        <input
          type="datetime-local"
          aria-label="Last seen before"
          value={filters.lastSeenBefore}
          onChange={(e) => onChange({ lastSeenBefore: e.target.value })}
        />
      </label>
    </div>
  );
}
