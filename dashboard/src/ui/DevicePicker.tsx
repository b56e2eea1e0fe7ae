import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { useLoad } from './common';
import { useSettled } from './use-settled';

const PAGE = 100;

/**
 * A project's device, picked from a list the API filters by name as one types (`q`), so a fleet
 * of any size is reachable: the list holds the first 100 matches. With no device chosen yet the
 * first match is taken.
 */
export function DevicePicker(props: {
  projectId: string;
  /** Only the devices of this template. */
  templateId?: string;
  /** The field's label (default "Device"). */
  label?: string;
  value: string;
  onChange: (deviceId: string) => void;
  /** The name of `value`, shown when it is not among the matches. */
  valueName?: string;
  ariaLabel?: string;
  disabled?: boolean;
}) {
  const { projectId, templateId, value, onChange } = props;
  const [q, setQ] = useState('');
  const settled = useSettled(q.trim());
  const list = useLoad(
    () => api.devices({ projectId, templateId, q: settled || undefined, limit: PAGE }),
    [projectId, templateId, settled],
  );
  const devices = list.data?.devices ?? [];
  const first = devices[0]?.id;
  useEffect(() => {
    if (!value && first) onChange(first);
  }, [value, first, onChange]);
  const searchable = !props.disabled && (q !== '' || (list.data?.total ?? 0) > PAGE);

  return (
    <div className="field">
      <label>
        {props.label ?? 'Device'}
        <select aria-label={props.ariaLabel} value={value} disabled={props.disabled} onChange={(e) => onChange(e.target.value)}>
          {!devices.some((d) => d.id === value) && value && <option value={value}>{props.valueName ?? 'device'}</option>}
          {devices.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
      </label>
      {searchable && (
        <input
          type="search"
          aria-label="Find a device by name"
          placeholder="Find a device by name"
          value={q}
          onChange={(e) => setQ(e.target.value)}
        />
      )}
      {list.data && list.data.total > devices.length && (
        <small className="help">
          The first {devices.length} of {list.data.total} matches: type to narrow.
        </small>
      )}
    </div>
  );
}
