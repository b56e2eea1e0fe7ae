import { useState } from 'react';
import { api } from '../api/client';
import { useSocket, useSocketEvent } from '../realtime/socket';
import { Card, ErrorLine, timeAgo, useAction, useLoad } from '../ui/common';
import { PriorityBadge } from '../ui/SeverityBadge';
import { notificationsChanged } from './UnreadBadge';

const TYPES = ['', 'threshold', 'device_status', 'no_data', 'device'];

export function NotificationsScreen() {
  const { epoch } = useSocket();
  const projects = useLoad(() => api.projects(), []);
  const [projectId, setProjectId] = useState('');
  const [type, setType] = useState('');
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [page, setPage] = useState(1);
  const list = useLoad(
    () =>
      api.notifications({ projectId: projectId || undefined, type: type || undefined, unread: unreadOnly || undefined, page, limit: 20 }),
    [projectId, type, unreadOnly, page, epoch],
  );
  const [run, error] = useAction();
  useSocketEvent('notification', () => list.reload());
  const changed = () => {
    list.reload();
    notificationsChanged();
  };
  const data = list.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / data.limit)) : 1;
  const projectName = (id: string) => projects.data?.projects.find((p) => p.id === id)?.name ?? '';

  return (
    <div className="stack">
      <h1>Notifications</h1>
      <Card
        title={`${data?.unread ?? 0} unread of ${data?.total ?? 0}`}
        actions={
          <button type="button" onClick={() => run(async () => (await api.readAll(projectId || undefined), changed()))}>
            Mark all read
          </button>
        }
      >
        <div className="row">
          <select aria-label="Project filter" value={projectId} onChange={(e) => (setProjectId(e.target.value), setPage(1))}>
            <option value="">All projects</option>
            {projects.data?.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
          <select aria-label="Type filter" value={type} onChange={(e) => (setType(e.target.value), setPage(1))}>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t || 'All types'}
              </option>
            ))}
          </select>
          <label className="inline">
            <input type="checkbox" checked={unreadOnly} onChange={(e) => (setUnreadOnly(e.target.checked), setPage(1))} /> Unread only
          </label>
        </div>
        <ErrorLine error={list.error ?? error} />
        <ul className="notifications">
          {data?.notifications.map((n) => (
            <li
              key={n.id}
              className={`prio-${n.priority} ${n.read ? 'read' : 'unread'}`}
              data-testid="notification"
              data-priority={n.priority}
            >
              <div>
                <strong>{n.title}</strong> <PriorityBadge priority={n.priority} />
                <p>{n.message}</p>
                <span className="muted">
                  {projectName(n.projectId)} · {n.type} · {timeAgo(n.createdAt)}
                </span>
              </div>
              <div className="actions">
                {!n.read && (
                  <button type="button" className="small" onClick={() => run(async () => (await api.markRead(n.id), changed()))}>
                    Mark read
                  </button>
                )}
                <button
                  type="button"
                  className="small danger"
                  onClick={() => run(async () => (await api.deleteNotification(n.id), changed()))}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
          {data && data.notifications.length === 0 && (
            <li className="empty">
              {unreadOnly || type || projectId
                ? 'No notification matches these filters.'
                : 'No notifications yet. Rules raise them: set one up on a project’s Rules tab.'}
            </li>
          )}
        </ul>
        <div className="row">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span className="muted">
            Page {page} of {pages}
          </span>
          <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Older
          </button>
        </div>
      </Card>
    </div>
  );
}
