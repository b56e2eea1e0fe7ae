import { useEffect, useRef } from 'react';
import { useSocket, useSocketEvent } from '../../realtime/socket';
import { useLoad } from '../../ui/common';
import { statusCounts } from './device-page';

const RECOUNT_AFTER_MS = 1000;

/** Online and offline counts of the project's devices, recounted after status changes (at most once a second). */
export function FleetSummary({ projectId, onPick }: { projectId: string; onPick: (status: 'online' | 'offline') => void }) {
  const { epoch } = useSocket();
  const counts = useLoad(() => statusCounts(projectId), [projectId, epoch]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  useSocketEvent('device:status', () => {
    timer.current ??= setTimeout(() => {
      timer.current = null;
      counts.reload();
    }, RECOUNT_AFTER_MS);
  });
  const c = counts.data;
  return (
    <div className="fleet-summary" data-testid="fleet-summary">
      <button type="button" className="chip" onClick={() => onPick('online')} data-testid="count-online">
        <span className="dot online" /> {c?.online ?? '…'} online
      </button>
      <button type="button" className="chip" onClick={() => onPick('offline')} data-testid="count-offline">
        <span className="dot" /> {c?.offline ?? '…'} offline
      </button>
    </div>
  );
}
