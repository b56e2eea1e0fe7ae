import { useId, useState, type FormEvent } from 'react';
import { DATA_TYPES, type ConfigKey } from '../../../common/widget-config';
import type { JsonValue, Template, TemplatePin, Widget, WidgetConfig } from '../api/types';
import { draftName, PinPicker, pinDraftOf, type PinDraft } from '../pins/PinPicker';
import { widgetPin } from '../pins/widget-pin';
import { DevicePicker } from '../ui/DevicePicker';
import { keysOf, title, WIDGET_TYPES, type WidgetType } from './catalog';
import { CONFIG_FIELDS, DATA_TYPE_LABELS } from './config-fields';

export interface WidgetDraft {
  type: WidgetType;
  /** The device picked; empty on a template's dashboard (its widgets follow the device shown). */
  deviceId: string;
  /** The pin's name: V0–V255, D0–D99 or A0–A15. */
  pin: string;
  config: WidgetConfig;
}

const NUMBER_KEYS = new Set<ConfigKey>(['min', 'max', 'step']);

/** The config keys the form offers: a template's widget holds no pin lock (a lock is one device's, DESIGN §5). */
const formKeys = (type: WidgetType, template: boolean): readonly ConfigKey[] =>
  template ? keysOf(type).filter((k) => k !== 'locked') : keysOf(type);

function configOf(keys: readonly ConfigKey[], fields: Record<string, string>): WidgetConfig {
  const config: WidgetConfig = {};
  for (const key of keys) {
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
  return config;
}

/** One config field: its human label, the input that fits the key, and a line of help under it. */
function ConfigField({ name, value, onChange }: { name: ConfigKey; value: string; onChange: (v: string) => void }) {
  const help = useId();
  const { label, help: text } = CONFIG_FIELDS[name];
  const hint = (
    <small id={help} className="help">
      {text}
    </small>
  );
  if (name === 'locked')
    return (
      <div>
        <label className="inline">
          <input
            type="checkbox"
            aria-describedby={help}
            checked={value === 'true'}
            onChange={(e) => onChange(e.target.checked ? 'true' : 'false')}
          />{' '}
          {label}
        </label>
        {hint}
      </div>
    );
  if (name === 'dataType')
    return (
      <div className="field">
        <label>
          {label}
          <select aria-describedby={help} value={value} onChange={(e) => onChange(e.target.value)}>
            <option value="">Not set</option>
            {DATA_TYPES.map((t) => (
              <option key={t} value={t}>
                {DATA_TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </label>
        {hint}
      </div>
    );
  return (
    <div className="field">
      <label>
        {label}
        <input
          aria-describedby={help}
          type={NUMBER_KEYS.has(name) ? 'number' : 'text'}
          step="any"
          value={value}
          onChange={(e) => onChange(e.target.value)}
        />
      </label>
      {hint}
    </div>
  );
}

/** The form fields a template pin fills in: its name as the title (unless one is typed), data type, unit and range. */
function fieldsOfPin(fields: Record<string, string>, pin: TemplatePin): Record<string, string> {
  const text = (v: string | number | null) => (v === null ? '' : String(v));
  return {
    ...fields,
    label: fields.label || pin.name,
    dataType: pin.dataType,
    suffix: text(pin.unit),
    min: text(pin.min),
    max: text(pin.max),
  };
}

/** A template's pins to pick from; a pick sets the pin and fills the fields it knows. */
function TemplatePinSelect(props: { template: Template; pin: string; onPick: (pin: TemplatePin) => void; disabled: boolean }) {
  const pins = props.template.pins;
  if (pins.length === 0) return <p className="muted">The template declares no pins yet: pick any pin below.</p>;
  const chosen = pins.some((p) => p.pin === props.pin) ? props.pin : '';
  return (
    <label>
      Template pin
      <select
        aria-label="Template pin"
        value={chosen}
        disabled={props.disabled}
        onChange={(e) => {
          const pin = pins.find((p) => p.pin === e.target.value);
          if (pin) props.onPick(pin);
        }}
      >
        <option value="">Another pin (below)</option>
        {pins.map((p) => (
          <option key={p.pin} value={p.pin}>
            {p.pin} · {p.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The form of one type: its fields are the config keys the gateway's schema knows for that type.
 * With `template` the widget binds a pin of the template instead of a device's.
 */
export function WidgetForm(props: {
  projectId: string;
  /** Set on a template's dashboard. */
  template?: Template;
  editing: Widget | null;
  deviceName: (deviceId: string) => string;
  onSave: (draft: WidgetDraft) => Promise<void>;
  onCancel: () => void;
  error: string | null;
}) {
  const { editing } = props;
  const [type, setType] = useState<WidgetType>((editing?.type as WidgetType) ?? 'GAUGE');
  const [deviceId, setDeviceId] = useState(editing?.deviceId ?? '');
  const { template } = props;
  const [pin, setPin] = useState<PinDraft>(pinDraftOf(editing ? widgetPin(editing) : 'V0'));
  const [fields, setFields] = useState<Record<string, string>>(() => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(editing?.config ?? {})) out[k] = Array.isArray(v) ? v.join(', ') : String(v);
    return out;
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void props.onSave({ type, deviceId, pin: draftName(pin), config: configOf(formKeys(type, !!template), fields) });
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
      {template ? (
        <TemplatePinSelect
          template={template}
          pin={draftName(pin)}
          disabled={!!editing}
          onPick={(p) => (setPin(pinDraftOf(p.pin)), setFields(fieldsOfPin(fields, p)))}
        />
      ) : (
        <DevicePicker
          projectId={props.projectId}
          value={deviceId}
          valueName={editing?.deviceId ? props.deviceName(editing.deviceId) : undefined}
          onChange={setDeviceId}
          ariaLabel="Widget device"
          disabled={!!editing}
        />
      )}
      <PinPicker label="Widget pin" value={pin} onChange={setPin} disabled={!!editing} />
      {formKeys(type, !!template).map((key) => (
        <ConfigField key={key} name={key} value={fields[key] ?? ''} onChange={(v) => setFields({ ...fields, [key]: v })} />
      ))}
      {props.error && (
        <p className="error" role="alert">
          {props.error}
        </p>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={!template && !deviceId}>
          {editing ? 'Save widget' : 'Add widget'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
