import type { FormEvent } from 'react';
import type { RuleCondition, Template } from '../../api/types';
import { Card } from '../../ui/common';
import { CHANNELS, CONDITIONS, conditionOf, type Draft, SEVERITIES } from './rule-draft';
import { ScopeFields } from './ScopeFields';

/** A rule's form: its scope, condition, alarm settings, message and channels. */
export function RuleForm(props: {
  projectId: string;
  draft: Draft;
  update: (change: Partial<Draft>) => void;
  templates: readonly Template[] | undefined;
  deviceName: (id: string) => string;
  onSubmit: (e: FormEvent) => void;
  onCancel: () => void;
  busy: boolean;
  problem: string | null;
}) {
  const { draft, update, busy, onCancel } = props;
  const c = conditionOf(draft.condition);
  return (
    <Card title={draft.id ? 'Edit rule' : 'New rule'}>
      <form className="form" onSubmit={props.onSubmit} data-testid="rule-form">
        <ScopeFields
          projectId={props.projectId}
          draft={draft}
          templates={props.templates}
          deviceName={props.deviceName}
          onChange={update}
        />
        <label>
          Condition
          <select aria-label="Condition" value={draft.condition} onChange={(e) => update({ condition: e.target.value as RuleCondition })}>
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
              onChange={(e) => update({ pin: e.target.value })}
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
              onChange={(e) => update({ threshold: e.target.value })}
            />
          </label>
        )}
        {c?.threshold && (
          <>
            <label>
              Severity
              <select aria-label="Severity" value={draft.severity} onChange={(e) => update({ severity: e.target.value })}>
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
                onChange={(e) => update({ clearThreshold: e.target.value })}
              />
            </label>
            <label>
              Re-notify every (seconds, while unacknowledged)
              <input
                aria-label="Re-notify seconds"
                type="number"
                min={1}
                value={draft.renotifySeconds}
                onChange={(e) => update({ renotifySeconds: e.target.value })}
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
              onChange={(e) => update({ forSeconds: e.target.value })}
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
              onChange={(e) => update({ duration: e.target.value })}
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
            onChange={(e) => update({ message: e.target.value })}
          />
        </label>
        <fieldset>
          <legend>Channels</legend>
          {CHANNELS.map((ch) => (
            <label key={ch} className="inline">
              <input
                type="checkbox"
                checked={draft.channels.includes(ch)}
                onChange={(e) => update({ channels: e.target.checked ? [...draft.channels, ch] : draft.channels.filter((x) => x !== ch) })}
              />
              {ch}
            </label>
          ))}
        </fieldset>
        <label className="inline">
          <input type="checkbox" checked={draft.enabled} onChange={(e) => update({ enabled: e.target.checked })} /> Enabled
        </label>
        {props.problem && (
          <p className="error" role="alert">
            {props.problem}
          </p>
        )}
        <div className="row">
          <button type="submit" className="primary" disabled={busy}>
            Save rule
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Card>
  );
}
