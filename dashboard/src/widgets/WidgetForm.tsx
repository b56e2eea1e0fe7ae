import { useState, type FormEvent } from 'react';
import { DATA_TYPES, type ConfigKey } from '../../../common/widget-config';
import type { Device, JsonValue, Widget, WidgetConfig } from '../api/types';
import { DeviceSelect } from '../ui/common';
import { keysOf, title, WIDGET_TYPES, type WidgetType } from './catalog';

export interface WidgetDraft {
  type: WidgetType;
  deviceId: string;
  pin: number;
  config: WidgetConfig;
}

const NUMBER_KEYS = new Set<ConfigKey>(['min', 'max', 'step']);

/** The form of one type: its fields are the config keys the gateway's schema knows for that type. */
export function WidgetForm(props: { devices: Device[]; editing: Widget | null; onSave: (draft: WidgetDraft) => Promise<void>; onCancel: () => void; error: string | null }) {
  const { editing, devices } = props;
  const [type, setType] = useState<WidgetType>((editing?.type as WidgetType) ?? 'GAUGE');
  const [deviceId, setDeviceId] = useState(editing?.deviceId ?? devices[0]?.id ?? '');
  const [pin, setPin] = useState(String(editing?.pin ?? 0));
  const [fields, setFields] = useState<Record<string, string>>(() => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(editing?.config ?? {})) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return out;
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const config: WidgetConfig = {};
    for (const key of keysOf(type)) {
      const raw = (fields[key] ?? '').trim();
      if (raw === '') continue;
      let value: JsonValue = raw;
      if (NUMBER_KEYS.has(key)) value = Number(raw);
      else if (key === 'locked') value = raw === 'true';
      else if (key === 'options')
        value = raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
      config[key] = value;
    }
    void props.onSave({ type, deviceId, pin: Number(pin), config });
  };

  const field = (key: ConfigKey) => {
    const set = (v: string) => setFields({ ...fields, [key]: v });
    const value = fields[key] ?? '';
    const label = `${key}${key === 'options' ? ' (comma separated)' : ''}`;
    if (key === 'dataType')
      return (
        <label key={key}>
          {label}
          <select aria-label={key} value={value} onChange={(e) => set(e.target.value)}>
            <option value="">—</option>
            {DATA_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
      );
    if (key === 'locked')
      return (
        <label key={key} className="inline">
          <input type="checkbox" aria-label="locked" checked={value === 'true'} onChange={(e) => set(e.target.checked ? 'true' : 'false')} /> Lock the pin (writes refused)
        </label>
      );
    return (
      <label key={key}>
        {label}
        <input aria-label={key} type={NUMBER_KEYS.has(key) ? 'number' : 'text'} step="any" value={value} onChange={(e) => set(e.target.value)} />
      </label>
    );
  };

  return (
    <form className="form card" onSubmit={submit} data-testid="widget-form">
      <h2>{editing ? `Edit ${title(editing.type)}` : 'Add widget'}</h2>
      <label>
        Type
        <select aria-label="Widget type" value={type} disabled={!!editing} onChange={(e) => setType(e.target.value as WidgetType)}>
          {WIDGET_TYPES.map((t) => (
            <option key={t} value={t}>
              {title(t)}
            </option>
          ))}
        </select>
      </label>
      <DeviceSelect devices={devices} value={deviceId} onChange={setDeviceId} ariaLabel="Widget device" disabled={!!editing} />
      <label>
        Pin (V0–V255)
        <input aria-label="Widget pin" type="number" min={0} max={255} required disabled={!!editing} value={pin} onChange={(e) => setPin(e.target.value)} />
      </label>
      {keysOf(type).map(field)}
      {props.error && (
        <p className="error" role="alert">
          {props.error}
        </p>
      )}
      <div className="row">
        <button type="submit" className="primary">
          {editing ? 'Save widget' : 'Add widget'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
