import { useEffect, useMemo, useState } from 'react';
import { api } from '../../api/client';
import { useDevicePins } from '../../realtime/live-values';
import { useDeviceSnapshots } from '../../realtime/snapshots';
import { useRoom, useSocket } from '../../realtime/socket';
import { Link, navigate } from '../../router';
import { useSession } from '../../session';
import { Card, ErrorLine, useAction, useLoad } from '../../ui/common';
import { ConnectPanel } from '../connect/ConnectPanel';
import { Credentials } from '../Credentials';
import { parseTags } from '../devices/tags';
import { NotFound } from '../NotFound';
import { StatusBadge } from '../StatusBadge';
import { PinsCard } from './PinsCard';
import { SimpleApiCard } from './SimpleApiCard';

const NO_PINS: readonly string[] = [];

export function DeviceScreen({ deviceId }: { deviceId: string }) {
  const { epoch } = useSocket();
  const { session } = useSession();
  useRoom({ deviceId });
  const device = useLoad(() => api.device(deviceId), [deviceId, epoch]);
  const project = useLoad(async () => (device.data ? api.project(device.data.projectId) : undefined), [device.data?.projectId]);
  const widgets = useLoad(async () => (device.data ? api.widgets(device.data.projectId) : undefined), [device.data?.projectId]);
  const locks = useLoad(() => api.locks(deviceId), [deviceId, epoch]);
  useDeviceSnapshots(useMemo(() => [deviceId], [deviceId]));
  const recorded = useDevicePins(deviceId) ?? NO_PINS;
  const [token, setToken] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [run, error, busy] = useAction();
  const canEdit = project.data ? project.data.role !== 'viewer' : false;

  useEffect(() => {
    if (!device.data) return;
    setName(device.data.name);
    setTags(device.data.tags.join(', '));
  }, [device.data]);

  if (device.notFound) return <NotFound what="device" />;
  if (device.error) return <ErrorLine error={device.error} />;
  const d = device.data;
  if (!d) return <p className="muted">Loading…</p>;
  const ownFreePlan = project.data?.role === 'owner' && session?.user.plan === 'free';

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
        widgets={widgets.data?.widgets ?? []}
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
          <dt>IP address</dt>
          <dd>{d.ipAddress ?? '—'}</dd>
          <dt>Firmware</dt>
          <dd>{d.firmwareVersion ?? '—'}</dd>
          <dt>Created</dt>
          <dd>{new Date(d.createdAt).toLocaleString()}</dd>
        </dl>
        {canEdit && (
          <>
            <div className="row">
              <input aria-label="Device name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
              <input aria-label="Device tags" value={tags} placeholder="Tags, comma separated" onChange={(e) => setTags(e.target.value)} />
              <button
                type="button"
                disabled={busy}
                onClick={() => run(async () => (await api.updateDevice(d.id, { name, tags: parseTags(tags) }), device.reload()))}
              >
                Save
              </button>
            </div>
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
