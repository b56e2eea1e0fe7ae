import { useEffect, useState } from 'react';
import { api, ApiError } from '../api/client';
import { recordPinValue, usePinValue } from '../realtime/live-values';
import { useRoom, useSocket } from '../realtime/socket';
import { Link, navigate } from '../router';
import { Card, ErrorLine, Secret, timeAgo, useAction, useLoad } from '../ui/common';
import { Credentials } from './Credentials';
import { parseTags } from './DevicesView';
import { StatusBadge } from './StatusBadge';

export function DeviceScreen({ deviceId }: { deviceId: string }) {
  const { epoch } = useSocket();
  useRoom({ deviceId });
  const device = useLoad(() => api.device(deviceId), [deviceId, epoch]);
  const project = useLoad(async () => (device.data ? api.project(device.data.projectId) : undefined), [device.data?.projectId]);
  const widgets = useLoad(async () => (device.data ? api.widgets(device.data.projectId) : undefined), [device.data?.projectId]);
  const locks = useLoad(() => api.locks(deviceId), [deviceId, epoch]);
  const [token, setToken] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [tags, setTags] = useState('');
  const [extraPin, setExtraPin] = useState('');
  const [pins, setPins] = useState<number[]>([]);
  const [run, error, busy] = useAction();
  const canEdit = project.data ? project.data.role !== 'viewer' : false;

  useEffect(() => {
    if (!device.data) return;
    setName(device.data.name);
    setTags(device.data.tags.join(', '));
  }, [device.data]);

  useEffect(() => {
    const bound = (widgets.data?.widgets ?? []).filter((w) => w.deviceId === deviceId).map((w) => w.pin);
    const locked = (locks.data?.locks ?? []).map((l) => Number(l.pin.replace(/^V/i, '')));
    setPins((current) => [...new Set([...current, ...bound, ...locked])].sort((a, b) => a - b));
  }, [widgets.data, locks.data, deviceId]);

  if (device.error) return <ErrorLine error={device.error} />;
  const d = device.data;
  if (!d) return <p className="muted">Loading…</p>;
  const lockedPins = new Set((locks.data?.locks ?? []).map((l) => l.pin.toUpperCase()));

  return (
    <div className="stack">
      <p>
        <Link to={`/projects/${d.projectId}/devices`}>← {project.data?.name ?? 'Project'}</Link>
      </p>
      <div className="title-row">
        <h1>{d.name}</h1>
        <StatusBadge device={d} />
      </div>
      {token && <Credentials deviceId={d.id} token={token} onDone={() => setToken(null)} />}
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
              <button type="button" disabled={busy} onClick={() => run(async () => (await api.updateDevice(d.id, { name, tags: parseTags(tags) }), device.reload()))}>
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
                onClick={() => confirm(`Delete ${d.name} with its data, widgets and rules?`) && run(async () => (await api.deleteDevice(d.id), navigate(`/projects/${d.projectId}/devices`)))}
              >
                Delete device
              </button>
            </div>
          </>
        )}
        <ErrorLine error={error} />
      </Card>
      {canEdit && <SimpleApiCard deviceId={d.id} />}
      <Card title="Pins">
        <table>
          <thead>
            <tr>
              <th>Pin</th>
              <th>Latest value</th>
              <th>Updated</th>
              <th>Lock</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {pins.map((pin) => (
              <PinRow key={pin} deviceId={d.id} pin={pin} epoch={epoch} locked={lockedPins.has(`V${pin}`)} canEdit={canEdit} onLockChange={locks.reload} />
            ))}
          </tbody>
        </table>
        <div className="row">
          <input aria-label="Pin number" placeholder="Show pin (0–255)" value={extraPin} onChange={(e) => setExtraPin(e.target.value)} />
          <button type="button" onClick={() => /^\d{1,3}$/.test(extraPin) && Number(extraPin) <= 255 && setPins((p) => [...new Set([...p, Number(extraPin)])].sort((a, b) => a - b))}>
            Show pin
          </button>
        </div>
        <p className="muted">Pins shown: those bound to widgets, locked pins and any you add here.</p>
      </Card>
    </div>
  );
}

function PinRow(props: { deviceId: string; pin: number; epoch: number; locked: boolean; canEdit: boolean; onLockChange: () => void }) {
  const { deviceId, pin, epoch } = props;
  const live = usePinValue(deviceId, pin);
  const [run, error, busy] = useAction();
  const [missing, setMissing] = useState<string | null>(null);
  useEffect(() => {
    api.latest(deviceId, pin).then(
      (l) => recordPinValue(deviceId, pin, { value: l.value, at: l.timestamp }),
      (err: unknown) => setMissing(err instanceof ApiError && err.code === 'PIN_NOT_FOUND' ? null : String(err)),
    );
  }, [deviceId, pin, epoch]);
  return (
    <tr>
      <td>V{pin}</td>
      <td data-testid={`pin-value-V${pin}`}>{live?.value ?? <span className="muted">no value</span>}</td>
      <td className="muted">{timeAgo(live?.at)}</td>
      <td>
        {props.canEdit ? (
          <button
            type="button"
            className="small"
            disabled={busy}
            onClick={() => run(async () => (props.locked ? await api.unlockPin(deviceId, pin) : await api.lockPin(deviceId, pin), props.onLockChange()))}
          >
            {props.locked ? '🔒 Unlock' : 'Lock'}
          </button>
        ) : props.locked ? (
          '🔒'
        ) : (
          ''
        )}
        <ErrorLine error={error ?? missing} />
      </td>
      <td>
        <Link to={`/devices/${deviceId}/pins/${pin}`}>History</Link>
      </td>
    </tr>
  );
}

function SimpleApiCard({ deviceId }: { deviceId: string }) {
  const settings = useLoad(() => api.simpleApi(deviceId), [deviceId]);
  const [run, error, busy] = useAction();
  const s = settings.data;
  return (
    <Card title="Simple API">
      {s && (
        <>
          <label className="inline">
            <input
              type="checkbox"
              checked={s.enabled}
              disabled={busy}
              onChange={(e) => run(async () => (await api.setSimpleApi(deviceId, e.target.checked), settings.reload()))}
            />
            Enabled (GET /external/api/update?token=…)
          </label>
          {s.token && <Secret label="iot_ token" value={s.token} />}
          {s.token && (
            <button type="button" className="small" disabled={busy} onClick={() => confirm('The old iot_ token stops working at once. Regenerate?') && run(async () => (await api.regenerateSimpleToken(deviceId), settings.reload()))}>
              Regenerate iot_ token
            </button>
          )}
        </>
      )}
      <ErrorLine error={settings.error ?? error} />
    </Card>
  );
}
