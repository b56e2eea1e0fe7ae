import { useMemo, useState } from 'react';
import { JOB_DEVICE_STATES } from '../../../../common/jobs';
import { api } from '../../api/client';
import type { Job, JobDeviceState } from '../../api/types';
import { useDeviceNames } from '../../devices/device-names';
import { Link } from '../../router';
import { EmptyRow, ErrorLine, timeAgo, useLoad } from '../../ui/common';
import { Pager } from '../../ui/Pager';
import { useReceipts } from './use-receipts';

const LIMIT = 50;

/**
 * A job's devices with their state (`GET /jobs/{id}/devices`), reread whenever the job changes
 * (`version`), and for a command job each device's command receipt, live.
 */
export function JobDevicesTable({ job, version }: { job: Job; version: string }) {
  const [state, setState] = useState<JobDeviceState | ''>('');
  const [page, setPage] = useState(1);
  const list = useLoad(() => api.jobDevices(job.id, { state: state || undefined, page, limit: LIMIT }), [job.id, state, page, version]);
  const devices = list.data?.devices ?? [];
  const deviceName = useDeviceNames(useMemo(() => devices.map((d) => d.deviceId), [devices]));
  const receipts = useReceipts(devices.flatMap((d) => (d.commandId ? [d.commandId] : [])));
  const command = job.action.type === 'command';

  return (
    <>
      <div className="row">
        <select
          aria-label="Device state filter"
          value={state}
          onChange={(e) => (setState(e.target.value as JobDeviceState | ''), setPage(1))}
        >
          <option value="">Every state</option>
          {JOB_DEVICE_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <ErrorLine error={list.error} />
      <div className="table-scroll">
        <table data-testid="job-devices">
          <thead>
            <tr>
              <th>Device</th>
              <th>State</th>
              {command && <th>Command receipt</th>}
              <th>Changed</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {devices.map((d) => {
              const receipt = d.commandId ? receipts.get(d.commandId) : undefined;
              return (
                <tr key={d.deviceId} data-testid="job-device" data-state={d.state}>
                  <td>
                    <Link to={`/devices/${d.deviceId}`}>{deviceName(d.deviceId)}</Link>
                  </td>
                  <td>{d.state}</td>
                  {command && (
                    <td data-testid="job-device-receipt">
                      {receipt ? (
                        <>
                          {receipt.state}
                          <span className="muted">
                            {' '}
                            · {receipt.pin} = {receipt.value}
                            {receipt.acknowledgedAt ? ` · acknowledged ${timeAgo(receipt.acknowledgedAt)}` : ''}
                          </span>
                        </>
                      ) : (
                        <span className="muted">{d.commandId ? '…' : 'not sent yet'}</span>
                      )}
                    </td>
                  )}
                  <td className="muted">{timeAgo(d.updatedAt)}</td>
                  <td className="error">{d.error ?? ''}</td>
                </tr>
              );
            })}
            {list.data && devices.length === 0 && (
              <EmptyRow
                columns={command ? 5 : 4}
                text={state ? `No device is ${state}.` : 'The job has no devices yet: it fixes them when it starts.'}
              />
            )}
          </tbody>
        </table>
      </div>
      {list.data && list.data.total > LIMIT && (
        <Pager label="Job device" page={page} limit={LIMIT} total={list.data.total} onPage={setPage} />
      )}
    </>
  );
}
