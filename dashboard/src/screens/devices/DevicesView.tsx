import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import type { Device, Project } from '../../api/types';
import { useSocket } from '../../realtime/socket';
import { Link } from '../../router';
import { Card, EmptyRow, ErrorLine, useAction, useLoad } from '../../ui/common';
import { Pager } from '../../ui/Pager';
import { useSettled } from '../../ui/use-settled';
import { Credentials } from '../Credentials';
import { StatusBadge } from '../StatusBadge';
import { devicePage, type DeviceFilters } from './device-page';
import { FleetSummary } from './FleetSummary';
import { parseTags } from './tags';

const PAGE_SIZES = [20, 50, 100];
export function DevicesView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const [filters, setFilters] = useState<DeviceFilters>({ q: '', status: '', tag: '' });
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(20);
  const settled = useSettled(filters);
  const list = useLoad(() => devicePage(project.id, settled, page, limit), [project.id, settled, page, limit, epoch]);
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [created, setCreated] = useState<Device | null>(null);
  const [run, actionError, busy] = useAction();
  const canEdit = project.role !== 'viewer';
  const filter = (change: Partial<DeviceFilters>) => (setFilters({ ...filters, ...change }), setPage(1));
  const filtered = Boolean(filters.q || filters.status || filters.tag);

  const create = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const device = await api.createDevice({ name, projectId: project.id, tags: parseTags(tags) });
      setCreated(device);
      setName('');
      setTags('');
      list.reload();
    });
  };

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
          <select aria-label="Devices per page" value={limit} onChange={(e) => (setLimit(Number(e.target.value)), setPage(1))}>
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n} per page
              </option>
            ))}
          </select>
          {filtered && (
            <button type="button" onClick={() => (setFilters({ q: '', status: '', tag: '' }), setPage(1))}>
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
                <th>Status</th>
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
                  <td>
                    <StatusBadge device={d} />
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
                  columns={4}
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
        {canEdit && (
          <form className="row" onSubmit={create}>
            <input
              required
              maxLength={100}
              placeholder="Device name"
              aria-label="Device name"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
            <input placeholder="Tags, comma separated" aria-label="Device tags" value={tags} onChange={(e) => setTags(e.target.value)} />
            <button type="submit" className="primary" disabled={busy}>
              Create device
            </button>
          </form>
        )}
        <ErrorLine error={actionError} />
      </Card>
    </div>
  );
}
