import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { ProjectRooms } from '../realtime/ProjectRooms';
import { useSocket, useSocketEvent } from '../realtime/socket';
import { useLoad } from '../ui/common';

export const NOTIFICATIONS_CHANGED = 'dds:notifications-changed';

/** The live unread count (notifications arrive in project rooms, so it joins every project of the user): refetched on (re)connect, on each `notification` and after local changes. */
export function UnreadBadge() {
  const { epoch } = useSocket();
  const projects = useLoad(() => api.projects(), [epoch]);
  const [unread, setUnread] = useState<number | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    api.notifications({ limit: 1 }).then(
      (page) => live && setUnread(page.unread),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [epoch, tick]);

  useEffect(() => {
    const bump = () => setTick((t) => t + 1);
    window.addEventListener(NOTIFICATIONS_CHANGED, bump);
    return () => window.removeEventListener(NOTIFICATIONS_CHANGED, bump);
  }, []);
  useSocketEvent('notification', () => setTick((t) => t + 1));

  return (
    <>
      <ProjectRooms projectIds={projects.data?.projects.map((p) => p.id) ?? []} />
      {unread ? (
        <span className="badge" data-testid="unread-badge">
          {unread}
        </span>
      ) : null}
    </>
  );
}

export function notificationsChanged(): void {
  window.dispatchEvent(new Event(NOTIFICATIONS_CHANGED));
}
