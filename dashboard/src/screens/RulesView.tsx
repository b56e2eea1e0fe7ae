import { useMemo, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import type { NotificationChannel, NotificationRule, Project, RuleCondition } from '../api/types';
import { useDeviceNames } from '../devices/device-names';
import { Card, EmptyRow, ErrorLine, useAction, useLoad } from '../ui/common';
import { DevicePicker } from '../ui/DevicePicker';

/** Every condition of DESIGN §8 and the fields it needs. */
const CONDITIONS: Array<{
  value: RuleCondition;
  label: string;
  pin: 'required' | 'optional' | 'none';
  threshold: boolean;
  duration: boolean;
}> = [
  { value: 'gt', label: 'value > threshold', pin: 'required', threshold: true, duration: false },
  { value: 'gte', label: 'value ≥ threshold', pin: 'required', threshold: true, duration: false },
  { value: 'lt', label: 'value < threshold', pin: 'required', threshold: true, duration: false },
  { value: 'lte', label: 'value ≤ threshold', pin: 'required', threshold: true, duration: false },
  { value: 'eq', label: 'value = threshold', pin: 'required', threshold: true, duration: false },
  { value: 'neq', label: 'value ≠ threshold', pin: 'required', threshold: true, duration: false },
  { value: 'no_data', label: 'no data for a while', pin: 'optional', threshold: false, duration: true },
  { value: 'offline', label: 'device goes offline', pin: 'none', threshold: false, duration: false },
  { value: 'online', label: 'device comes online', pin: 'none', threshold: false, duration: false },
];
const CHANNELS: NotificationChannel[] = ['inApp', 'push', 'email'];
const SEVERITIES = ['critical', 'major', 'minor', 'warning', 'info'] as const;

interface Draft {
  id: string | null;
  deviceId: string;
  condition: RuleCondition;
  pin: string;
  threshold: string;
  duration: string;
  message: string;
  channels: NotificationChannel[];
  enabled: boolean;
  /** Alarm settings (docs/alarms.md); empty = not set. */
  severity: string;
  clearThreshold: string;
  forSeconds: string;
  renotifySeconds: string;
}

/** A number field of the form: null when empty, so the setting is removed. */
const numberOrNull = (text: string): number | null => (text.trim() === '' ? null : Number(text));

const emptyDraft = (deviceId: string): Draft => ({
  id: null,
  deviceId,
  condition: 'gt',
  pin: '0',
  threshold: '',
  duration: '300',
  message: 'Value is {value}',
  channels: ['inApp'],
  enabled: true,
  severity: '',
  clearThreshold: '',
  forSeconds: '',
  renotifySeconds: '',
});

function describe(rule: NotificationRule): string {
  const c = CONDITIONS.find((x) => x.value === rule.condition);
  if (!c) return rule.condition;
  if (c.threshold) return `V${rule.pin} ${c.label.replace('value ', '').replace('threshold', String(rule.threshold))}`;
  if (c.duration) return `no data ${rule.pin === null ? 'from the device' : `on V${rule.pin}`} for ${rule.duration}s`;
  return c.label;
}

export function RulesView({ project }: { project: Project }) {
  const rules = useLoad(() => api.rules(project.id), [project.id]);
  const devices = useLoad(() => api.devices({ projectId: project.id, limit: 1 }), [project.id]);
  const deviceName = useDeviceNames(useMemo(() => (rules.data?.rules ?? []).map((r) => r.deviceId), [rules.data]));
  const [draft, setDraft] = useState<Draft | null>(null);
  const [run, error, busy] = useAction();
  const canEdit = project.role !== 'viewer';
  const hasDevices = (devices.data?.total ?? 0) > 0;

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!draft) return;
    const c = CONDITIONS.find((x) => x.value === draft.condition);
    const body: Record<string, unknown> = {
      deviceId: draft.deviceId,
      condition: draft.condition,
      message: draft.message,
      channels: draft.channels,
      enabled: draft.enabled,
      pin: c?.pin === 'none' || draft.pin === '' ? null : Number(draft.pin),
      threshold: c?.threshold ? Number(draft.threshold) : null,
      duration: c?.duration ? Number(draft.duration) : null,
      // Settings the condition does not take are sent as null (a changed condition drops them).
      severity: c?.threshold && draft.severity ? draft.severity : null,
      clearThreshold: c?.threshold ? numberOrNull(draft.clearThreshold) : null,
      renotifySeconds: c?.threshold ? numberOrNull(draft.renotifySeconds) : null,
      forSeconds: c?.threshold || c?.pin === 'none' ? numberOrNull(draft.forSeconds) : null,
    };
    void run(async () => {
      if (draft.id) await api.updateRule(draft.id, body);
      else await api.createRule({ ...body, projectId: project.id });
      setDraft(null);
      rules.reload();
    });
  };

  const edit = (r: NotificationRule) =>
    setDraft({
      id: r.id,
      deviceId: r.deviceId,
      condition: r.condition,
      pin: r.pin === null ? '' : String(r.pin),
      threshold: r.threshold === null ? '' : String(r.threshold),
      duration: r.duration === null ? '300' : String(r.duration),
      message: r.message,
      channels: r.channels,
      enabled: r.enabled,
      severity: r.severity ?? '',
      clearThreshold: r.clearThreshold === null || r.clearThreshold === undefined ? '' : String(r.clearThreshold),
      forSeconds: r.forSeconds ? String(r.forSeconds) : '',
      renotifySeconds: r.renotifySeconds ? String(r.renotifySeconds) : '',
    });

  const c = draft ? CONDITIONS.find((x) => x.value === draft.condition) : undefined;
  return (
    <div className="stack">
      <Card
        title="Notification rules"
        actions={
          canEdit && (
            <button type="button" disabled={!hasDevices} onClick={() => setDraft(emptyDraft(''))}>
              New rule
            </button>
          )
        }
      >
        <ErrorLine error={rules.error} />
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th>Device</th>
                <th>When</th>
                <th>Message</th>
                <th>Channels</th>
                <th>Enabled</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rules.data?.rules.map((r) => (
                <tr key={r.id}>
                  <td>{deviceName(r.deviceId)}</td>
                  <td>{describe(r)}</td>
                  <td>{r.message}</td>
                  <td>{r.channels.join(', ')}</td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label="Rule enabled"
                      checked={r.enabled}
                      disabled={!canEdit}
                      onChange={(e) => run(async () => (await api.updateRule(r.id, { enabled: e.target.checked }), rules.reload()))}
                    />
                  </td>
                  <td>
                    {canEdit && (
                      <>
                        <button type="button" className="small" onClick={() => edit(r)}>
                          Edit
                        </button>
                        <button
                          type="button"
                          className="small danger"
                          onClick={() => confirm('Delete this rule?') && run(async () => (await api.deleteRule(r.id), rules.reload()))}
                        >
                          Delete
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
              {rules.data?.rules.length === 0 && (
                <EmptyRow
                  columns={6}
                  text={
                    hasDevices
                      ? 'No rules yet. A rule notifies you when a value crosses a threshold, data stops or a device goes offline.'
                      : 'No rules yet. Create a device first: rules watch a device.'
                  }
                />
              )}
            </tbody>
          </table>
        </div>
      </Card>
      {draft && (
        <Card title={draft.id ? 'Edit rule' : 'New rule'}>
          <form className="form" onSubmit={save}>
            <DevicePicker
              projectId={project.id}
              value={draft.deviceId}
              valueName={deviceName(draft.deviceId)}
              onChange={(deviceId) => setDraft((d) => (d ? { ...d, deviceId } : d))}
            />
            <label>
              Condition
              <select
                aria-label="Condition"
                value={draft.condition}
                onChange={(e) => setDraft({ ...draft, condition: e.target.value as RuleCondition })}
              >
                {CONDITIONS.map((x) => (
                  <option key={x.value} value={x.value}>
                    {x.value} — {x.label}
                  </option>
                ))}
              </select>
            </label>
            {c?.pin !== 'none' && (
              <label>
                Pin (V){c?.pin === 'optional' ? ' — empty: any data from the device' : ''}
                <input
                  aria-label="Rule pin"
                  type="number"
                  min={0}
                  max={255}
                  required={c?.pin === 'required'}
                  value={draft.pin}
                  onChange={(e) => setDraft({ ...draft, pin: e.target.value })}
                />
              </label>
            )}
            {c?.threshold && (
              <label>
                Threshold
                <input
                  aria-label="Threshold"
                  type="number"
                  step="any"
                  required
                  value={draft.threshold}
                  onChange={(e) => setDraft({ ...draft, threshold: e.target.value })}
                />
              </label>
            )}
            {c?.threshold && (
              <>
                <label>
                  Severity
                  <select aria-label="Severity" value={draft.severity} onChange={(e) => setDraft({ ...draft, severity: e.target.value })}>
                    <option value="">default (warning)</option>
                    {SEVERITIES.map((s) => (
                      <option key={s} value={s}>
                        {s}
                      </option>
                    ))}
                  </select>
                </label>
                <label>
                  Clears only past (hysteresis; empty: as soon as the condition no longer holds)
                  <input
                    aria-label="Clears only past"
                    type="number"
                    step="any"
                    value={draft.clearThreshold}
                    onChange={(e) => setDraft({ ...draft, clearThreshold: e.target.value })}
                  />
                </label>
                <label>
                  Re-notify every (seconds, while unacknowledged)
                  <input
                    aria-label="Re-notify seconds"
                    type="number"
                    min={1}
                    value={draft.renotifySeconds}
                    onChange={(e) => setDraft({ ...draft, renotifySeconds: e.target.value })}
                  />
                </label>
              </>
            )}
            {(c?.threshold || c?.pin === 'none') && (
              <label>
                Only after it holds for (seconds)
                <input
                  aria-label="For seconds"
                  type="number"
                  min={0}
                  value={draft.forSeconds}
                  onChange={(e) => setDraft({ ...draft, forSeconds: e.target.value })}
                />
              </label>
            )}
            {c?.duration && (
              <label>
                Silence (seconds, 1 – 2 592 000)
                <input
                  aria-label="Duration"
                  type="number"
                  min={1}
                  max={2592000}
                  required
                  value={draft.duration}
                  onChange={(e) => setDraft({ ...draft, duration: e.target.value })}
                />
              </label>
            )}
            <label>
              Message ({'{value}'} is replaced)
              <input
                aria-label="Message"
                required
                maxLength={500}
                value={draft.message}
                onChange={(e) => setDraft({ ...draft, message: e.target.value })}
              />
            </label>
            <fieldset>
              <legend>Channels</legend>
              {CHANNELS.map((ch) => (
                <label key={ch} className="inline">
                  <input
                    type="checkbox"
                    checked={draft.channels.includes(ch)}
                    onChange={(e) =>
                      setDraft({ ...draft, channels: e.target.checked ? [...draft.channels, ch] : draft.channels.filter((x) => x !== ch) })
                    }
                  />
                  {ch}
                </label>
              ))}
            </fieldset>
            <label className="inline">
              <input type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })} /> Enabled
            </label>
            <div className="row">
              <button type="submit" className="primary" disabled={busy}>
                Save rule
              </button>
              <button type="button" onClick={() => setDraft(null)}>
                Cancel
              </button>
            </div>
          </form>
        </Card>
      )}
      <ErrorLine error={error} />
    </div>
  );
}
