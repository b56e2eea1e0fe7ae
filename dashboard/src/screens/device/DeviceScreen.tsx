import { useMemo, useState } from 'react';
import { api } from '../../api/client';
import { useDevicePins } from '../../realtime/live-values';
import { useDeviceSnapshots } from '../../realtime/snapshots';
import { useRoom, useSocket } from '../../realtime/socket';
import { Link, navigate } from '../../router';
import { useSession } from '../../session';
import { Card, ErrorLine, useAction, useLoad } from '../../ui/common';
import { ConnectPanel } from '../connect/ConnectPanel';
import { Credentials } from '../Credentials';
import { NotFound } from '../NotFound';
import { StatusBadge } from '../StatusBadge';
import { useTemplates } from '../../templates/use-templates';
import { DeviceEditor } from './DeviceEditor';
import { PinsCard } from './PinsCard';
import { SimpleApiCard } from './SimpleApiCard';

const NO_PINS: readonly string[] = [];

/** Where a device's heartbeat timeout comes from: its own, its template's, or the service's default. */
function heartbeatText(own: number | null | undefined, template: number | null): string {
  if (own) return `${own} s (its own)`;
  if (template) return `${template} s (from its template)`;
  return "the service's default";
}

export function DeviceScreen({ deviceId }: { deviceId: string }) {
  const { epoch } = useSocket();
  const { session } = useSession();
  useRoom({ deviceId });
  const device = useLoad(() => api.device(deviceId), [deviceId, epoch]);
  const project = useLoad(async () => (device.data ? api.project(device.data.projectId) : undefined), [device.data?.projectId]);
  const widgets = useLoad(
    async () => (device.data ? api.widgets({ projectId: device.data.projectId }) : undefined),
    [device.data?.projectId],
  );
  const templateId = device.data?.templateId ?? null;
  const templateWidgets = useLoad(async () => (templateId ? api.widgets({ templateId }) : undefined), [templateId]);
  const { templates, byId: templateById } = useTemplates(device.data?.projectId, epoch);
  const locks = useLoad(() => api.locks(deviceId), [deviceId, epoch]);
  useDeviceSnapshots(useMemo(() => [deviceId], [deviceId]));
  const recorded = useDevicePins(deviceId) ?? NO_PINS;
  const [token, setToken] = useState<string | null>(null);
  const [run, error, busy] = useAction();
  const canEdit = project.data ? project.data.role !== 'viewer' : false;
  // The template's widgets show this device's pins as well as the project's own widgets of it.
  const bound = useMemo(
    () => [...(widgets.data?.widgets ?? []), ...(templateWidgets.data?.widgets ?? []).map((w) => ({ ...w, deviceId }))],
    [widgets.data, templateWidgets.data, deviceId],
  );

  if (device.notFound) return <NotFound what="device" />;
  if (device.error) return <ErrorLine error={device.error} />;
  const d = device.data;
  if (!d) return <p className="muted">Loading…</p>;
  const ownFreePlan = project.data?.role === 'owner' && session?.user.plan === 'free';
  const template = d.templateId ? templateById.get(d.templateId) : undefined;

  return (
    <div className="stack">
      <p>
        <Link to={`/projects/${d.projectId}/devices`}>← {project.data?.name ?? 'Project'}</Link>
      </p>
      <div className="title-row">
        <h1>{d.name}</h1>
        <StatusBadge device={d} />
      </div>
      {token ? <Credentials device={d} token={token} onDone={() => setToken(null)} /> : <ConnectPanel device={d} token={null} />}
      <PinsCard
        deviceId={d.id}
        recorded={recorded}
        widgets={bound}
        declared={template?.pins}
        locks={locks.data?.locks ?? []}
        canEdit={canEdit}
        onLockChange={locks.reload}
      />
      <Card title="Device">
        <dl className="facts">
          <dt>Id</dt>
          <dd>
            <code>{d.id}</code>
          </dd>
          <dt>Token</dt>
          <dd>
            <code>{d.token}</code>
          </dd>
          <dt>Template</dt>
          <dd data-testid="device-template">
            {d.templateId ? (
              <Link to={`/templates/${d.templateId}?device=${d.id}`}>{template?.name ?? 'template'} · dashboard</Link>
            ) : (
              <span className="muted">none</span>
            )}
          </dd>
          <dt>Heartbeat timeout</dt>
          <dd data-testid="device-heartbeat">{heartbeatText(d.heartbeatTimeoutS, template?.heartbeatTimeoutS ?? null)}</dd>
          <dt>IP address</dt>
          <dd>{d.ipAddress ?? '—'}</dd>
          <dt>Firmware</dt>
          <dd>{d.firmwareVersion ?? '—'}</dd>
          <dt>Created</dt>
          <dd>{new Date(d.createdAt).toLocaleString()}</dd>
        </dl>
        {canEdit && (
          <>
            <DeviceEditor device={d} templates={templates} onSaved={device.reload} />
            <div className="row">
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  confirm('The old token stops working at once, at the broker too. Regenerate?') &&
                  run(async () => setToken((await api.regenerateDeviceToken(d.id)).token))
                }
              >
                Regenerate token
              </button>
              <button
                type="button"
                className="danger"
                disabled={busy}
                onClick={() =>
                  confirm(`Delete ${d.name} with its data, widgets and rules?`) &&
                  run(async () => (await api.deleteDevice(d.id), navigate(`/projects/${d.projectId}/devices`)))
                }
              >
                Delete device
              </button>
            </div>
          </>
        )}
        <ErrorLine error={error} />
      </Card>
      {canEdit && <SimpleApiCard deviceId={d.id} planAllows={!ownFreePlan} />}
    </div>
  );
}
