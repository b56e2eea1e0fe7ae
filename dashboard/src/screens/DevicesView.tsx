import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import type { Device, Project } from '../api/types';
import { useSocket } from '../realtime/socket';
import { Link } from '../router';
import { Card, ErrorLine, useAction, useLoad } from '../ui/common';
import { Credentials } from './Credentials';
import { StatusBadge } from './StatusBadge';

export const parseTags = (text: string): string[] =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

export function DevicesView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const { data, error, reload } = useLoad(() => api.devices({ projectId: project.id, limit: 100 }), [project.id, epoch]);
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [created, setCreated] = useState<Device | null>(null);
  const [run, actionError, busy] = useAction();
  const canEdit = project.role !== 'viewer';

  const create = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const device = await api.createDevice({ name, projectId: project.id, tags: parseTags(tags) });
      setCreated(device);
      setName('');
      setTags('');
      reload();
    });
  };

  return (
    <div className="stack">
      {created && <Credentials deviceId={created.id} token={created.token} onDone={() => setCreated(null)} />}
      <Card title={`Devices (${data?.total ?? 0})`}>
        <ErrorLine error={error} />
        <table>
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
                    <span key={t} className="tag">
                      {t}
                    </span>
                  ))}
                </td>
                <td className="muted">{d.firmwareVersion ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {canEdit && (
          <form className="row" onSubmit={create}>
            <input required maxLength={100} placeholder="Device name" aria-label="Device name" value={name} onChange={(e) => setName(e.target.value)} />
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
