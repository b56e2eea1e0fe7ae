import { useMemo, useState } from 'react';
import { ALARM_SEVERITIES, type Alarm } from '../../../common/contracts';
import { api } from '../api/client';
import type { Project } from '../api/types';
import { useDeviceNames } from '../devices/device-names';
import { useSocket, useSocketEvent } from '../realtime/socket';
import { Card, ErrorLine, timeAgo, useAction, useLoad } from '../ui/common';
import { SeverityBadge } from '../ui/SeverityBadge';

const STATES = ['', 'active', 'cleared'];

/** Worst first, then the most recently raised. */
const byUrgency = (a: Alarm, b: Alarm): number =>
  ALARM_SEVERITIES.indexOf(a.severity) - ALARM_SEVERITIES.indexOf(b.severity) || b.lastRaisedAt.localeCompare(a.lastRaisedAt);

/** A project's alarms (docs/alarms.md), live: editors and up acknowledge and clear. */
export function AlarmsView({ project }: { project: Project }) {
  const { epoch } = useSocket();
  const [state, setState] = useState('active');
  const list = useLoad(() => api.alarms({ projectId: project.id, state: state || undefined, limit: 100 }), [project.id, state, epoch]);
  const [run, error] = useAction();
  useSocketEvent('alarm', (alarm) => {
    if (alarm.projectId === project.id) list.reload();
  });
  const canAct = project.role !== 'viewer';
  const deviceName = useDeviceNames(useMemo(() => (list.data?.alarms ?? []).map((a) => a.deviceId), [list.data]));
  const act = (fn: () => Promise<Alarm>) => run(async () => (await fn(), list.reload()));

  return (
    <Card title={`${list.data?.total ?? 0} alarms`}>
      <div className="row">
        <select aria-label="State filter" value={state} onChange={(e) => setState(e.target.value)}>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s || 'All states'}
            </option>
          ))}
        </select>
      </div>
      <ErrorLine error={list.error ?? error} />
      <ul className="notifications">
        {[...(list.data?.alarms ?? [])].sort(byUrgency).map((a) => (
          <li
            key={a.id}
            className={`sev-${a.severity} ${a.acknowledged ? 'read' : 'unread'}`}
            data-testid="alarm"
            data-state={a.state}
            data-acknowledged={a.acknowledged}
          >
            <div>
              <strong>
                {deviceName(a.deviceId)} · {a.pin} = {a.value}
              </strong>{' '}
              <SeverityBadge severity={a.severity} /> <span className="muted">{a.state}</span>
              {a.acknowledged && <span className="muted"> · acknowledged {timeAgo(a.acknowledgedAt)}</span>}
              <p className="muted">
                raised {a.raisedCount}× · last {timeAgo(a.lastRaisedAt)}
                {a.clearedAt ? ` · cleared ${timeAgo(a.clearedAt)}` : ''}
              </p>
            </div>
            {canAct && (
              <div className="actions">
                {!a.acknowledged && (
                  <button type="button" className="small" onClick={() => act(() => api.acknowledgeAlarm(a.id))}>
                    Acknowledge
                  </button>
                )}
                {a.state === 'active' && (
                  <button type="button" className="small danger" onClick={() => act(() => api.clearAlarm(a.id))}>
                    Clear
                  </button>
                )}
              </div>
            )}
          </li>
        ))}
        {list.data && list.data.alarms.length === 0 && (
          <li className="empty">No alarms.{state === 'active' ? ' Nothing needs attention.' : ''}</li>
        )}
      </ul>
    </Card>
  );
}
