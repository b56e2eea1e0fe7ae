import { useState } from 'react';
import type { Device, Project } from '../../api/types';
import { useSocket } from '../../realtime/socket';
import { Link } from '../../router';
import { TemplateSelect } from '../../templates/TemplateSelect';
import { useTemplates } from '../../templates/use-templates';
import { Card, EmptyRow, ErrorLine, useLoad } from '../../ui/common';
import { Pager } from '../../ui/Pager';
import { useSettled } from '../../ui/use-settled';
import { Credentials } from '../Credentials';
import { StatusBadge } from '../StatusBadge';
import { devicePage, type DeviceFilters } from './device-page';
import { CreateDeviceForm } from './CreateDeviceForm';
import { FleetSummary } from './FleetSummary';

const PAGE_SIZES = [20, 50, 100];
const NO_FILTERS: DeviceFilters = { q: '', status: '', tag: '', templateId: '' };
/** The filters a link asked for: `?templateId=` (a template's device count links here). */
const linkedFilters = (): DeviceFilters => ({ ...NO_FILTERS, templateId: new URLSearchParams(location.search).get('templateId') ?? '' });

export function DevicesView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const [filters, setFilters] = useState<DeviceFilters>(linkedFilters);
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(20);
  const settled = useSettled(filters);
  const list = useLoad(() => devicePage(project.id, settled, page, limit), [project.id, settled, page, limit, epoch]);
  const { templates, nameOf } = useTemplates(project.id, epoch);
  const [created, setCreated] = useState<Device | null>(null);
  const canEdit = project.role !== 'viewer';
  const filter = (change: Partial<DeviceFilters>) => (setFilters({ ...filters, ...change }), setPage(1));
  const filtered = Boolean(filters.q || filters.status || filters.tag || filters.templateId);

  const data = list.data;
  return (
    <div className="stack">
      {created && <Credentials device={created} token={created.token} onDone={() => setCreated(null)} />}
      <Card
        title={`Devices (${data?.total ?? 0}${filtered ? ' found' : ''})`}
        actions={<FleetSummary projectId={project.id} onPick={(status) => filter({ status })} />}
      >
        <div className="row filters">
          <input
            type="search"
            aria-label="Search devices by name"
            placeholder="Search by name"
            value={filters.q}
            onChange={(e) => filter({ q: e.target.value })}
          />
          <select
            aria-label="Status filter"
            value={filters.status}
            onChange={(e) => filter({ status: e.target.value as DeviceFilters['status'] })}
          >
            <option value="">Online and offline</option>
            <option value="online">Online</option>
            <option value="offline">Offline</option>
          </select>
          <input aria-label="Tag filter" placeholder="Tag" value={filters.tag} onChange={(e) => filter({ tag: e.target.value })} />
          {((templates?.length ?? 0) > 0 || filters.templateId) && (
            <TemplateSelect
              templates={templates}
              value={filters.templateId}
              onChange={(templateId) => filter({ templateId })}
              ariaLabel="Template filter"
              noneLabel="Any template"
            />
          )}
          <select aria-label="Devices per page" value={limit} onChange={(e) => (setLimit(Number(e.target.value)), setPage(1))}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n} per page
              </option>
            ))}
          </select>
          {filtered && (
            <button type="button" onClick={() => (setFilters(NO_FILTERS), setPage(1))}>
              Clear filters
            </button>
          )}
        </div>
        <ErrorLine error={list.error} />
        <div className="table-scroll">
          <table data-testid="device-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Serial</th>
                <th>Status</th>
                <th>Template</th>
                <th>Tags</th>
                <th>Firmware</th>
              </tr>
            </thead>
            <tbody>
              {data?.devices.map((d) => (
                <tr key={d.id}>
                  <td>
                    <Link to={`/devices/${d.id}`}>{d.name}</Link>
                  </td>
                  <td className="muted" data-testid="device-serial-cell">
                    {d.serial ?? '—'}
                  </td>
                  <td>
                    <StatusBadge device={d} />
                  </td>
                  <td data-testid="device-template-cell">
                    {d.templateId ? (
                      <button
                        type="button"
                        className="tag"
                        title={`Show devices of ${nameOf(d.templateId)}`}
                        onClick={() => filter({ templateId: d.templateId ?? '' })}
                      >
                        {nameOf(d.templateId)}
                      </button>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td>
                    {d.tags.map((t) => (
                      <button key={t} type="button" className="tag" title={`Show devices tagged ${t}`} onClick={() => filter({ tag: t })}>
                        {t}
                      </button>
                    ))}
                  </td>
                  <td className="muted">{d.firmwareVersion ?? '—'}</td>
                </tr>
              ))}
              {data && data.devices.length === 0 && (
                <EmptyRow
                  columns={6}
                  text={
                    filtered
                      ? 'No device matches these filters.'
                      : canEdit
                        ? 'No devices yet. Create the first one below.'
                        : 'No devices yet.'
                  }
                />
              )}
            </tbody>
          </table>
        </div>
        {data && data.total > 0 && <Pager label="Device" page={page} limit={limit} total={data.total} onPage={setPage} />}
        {canEdit && <CreateDeviceForm projectId={project.id} templates={templates} onCreated={(d) => (setCreated(d), list.reload())} />}
        {canEdit && (
          <p className="muted">
            Many devices at once: <Link to={`/projects/${project.id}/import`}>import a CSV file</Link>.
          </p>
        )}
      </Card>
    </div>
  );
}
