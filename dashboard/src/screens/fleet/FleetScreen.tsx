import { useState } from 'react';
import { api } from '../../api/client';
import type { Device, Job } from '../../api/types';
import { useSocket } from '../../realtime/socket';
import { navigate } from '../../router';
import { Card, ErrorLine, useLoad } from '../../ui/common';
import { Pager } from '../../ui/Pager';
import { useSettled } from '../../ui/use-settled';
import { NewJobForm } from '../jobs/NewJobForm';
import { fleetCounts } from './fleet-counts';
import { deviceQuery, type FleetFilters, filtering, NO_FLEET_FILTERS } from './fleet-filters';
import { FleetCountsBar } from './FleetCountsBar';
import { FleetFilterBar } from './FleetFilterBar';
import { FleetTable } from './FleetTable';
import { type FleetSelection, jobTargets, singleProject } from './job-targets';

const LIMIT = 50;
const NOTHING: FleetSelection = { kind: 'devices', devices: new Map() };

/**
 * The fleet across the user's projects (DESIGN §13): filter it, count it by status and firmware,
 * tick devices (or take every one matching) and run a command or firmware update job on them.
 */
export function FleetScreen() {
  const { epoch } = useSocket();
  const projects = useLoad(() => api.projects(), []);
  const [filters, setFilters] = useState<FleetFilters>(NO_FLEET_FILTERS);
  const [page, setPage] = useState(1);
  const [selection, setSelection] = useState<FleetSelection>(NOTHING);
  const settled = useSettled(filters);
  const list = useLoad(() => api.devices({ ...deviceQuery(settled), page, limit: LIMIT }), [settled, page, epoch]);
  const counts = useLoad(() => fleetCounts(deviceQuery(settled)), [settled, epoch]);
  const total = list.data?.total ?? 0;

  const filter = (change: Partial<FleetFilters>) => {
    setFilters({ ...filters, ...change });
    setPage(1);
    // "Every matching device" would now mean other devices: the selection starts again.
    setSelection(NOTHING);
  };
  const ticked = selection.kind === 'devices' ? selection.devices : new Map<string, string>();
  const tick = (devices: readonly Device[], on: boolean) => {
    const next = new Map(ticked);
    for (const d of devices) on ? next.set(d.id, d.projectId) : next.delete(d.id);
    setSelection({ kind: 'devices', devices: next });
  };
  const projectName = (id: string) => projects.data?.projects.find((p) => p.id === id)?.name ?? 'project';
  const selectedText =
    selection.kind === 'matching'
      ? `all ${total} devices matching the filters`
      : `${ticked.size} selected device${ticked.size === 1 ? '' : 's'}`;
  const started = (jobs: Job[]) => navigate(jobs.length === 1 && jobs[0] ? `/jobs/${jobs[0].id}` : '/jobs');

  return (
    <div className="stack">
      <h1>Fleet</h1>
      <Card
        title={`Devices (${total}${filtering(filters) ? ' found' : ''})`}
        actions={<FleetCountsBar counts={counts.data} onFilter={filter} />}
      >
        <FleetFilterBar projects={projects.data?.projects} filters={filters} onChange={filter} />
        <ErrorLine error={list.error ?? counts.error} />
        <div className="row" data-testid="fleet-selection">
          <span>{selection.kind === 'matching' ? `All ${total} matching devices selected` : `${ticked.size} selected`}</span>
          <button type="button" disabled={total === 0 || selection.kind === 'matching'} onClick={() => setSelection({ kind: 'matching' })}>
            Select all {total} matching
          </button>
          <button type="button" disabled={selection.kind === 'devices' && ticked.size === 0} onClick={() => setSelection(NOTHING)}>
            Clear selection
          </button>
        </div>
        <FleetTable
          devices={list.data?.devices ?? []}
          projectName={projectName}
          isTicked={(id) => selection.kind === 'matching' || ticked.has(id)}
          onTick={tick}
          locked={selection.kind === 'matching'}
          emptyText={filtering(filters) ? 'No device matches these filters.' : 'No devices yet: create them in a project.'}
        />
        {total > LIMIT && <Pager label="Fleet" page={page} limit={LIMIT} total={total} onPage={setPage} />}
      </Card>
      {(selection.kind === 'matching' || ticked.size > 0) && (
        <Card title="Run a job">
          <NewJobForm
            selected={selectedText}
            targets={() => jobTargets(selection, settled, projects.data?.projects ?? [])}
            otaProjectId={singleProject(selection, settled)}
            onStarted={started}
          />
        </Card>
      )}
    </div>
  );
}
