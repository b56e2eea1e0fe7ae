import type { RuleScope, Template } from '../../api/types';
import { TemplateSelect } from '../../templates/TemplateSelect';
import { DevicePicker } from '../../ui/DevicePicker';
import { type Draft, SCOPES } from './rule-draft';

/** Which devices a rule watches: the scope, then its device, template or tag. */
export function ScopeFields(props: {
  projectId: string;
  draft: Draft;
  templates: readonly Template[] | undefined;
  deviceName: (id: string) => string;
  onChange: (change: Partial<Draft>) => void;
}) {
  const { draft, onChange } = props;
  return (
    <>
      <label>
        Applies to
        <select aria-label="Rule scope" value={draft.scope} onChange={(e) => onChange({ scope: e.target.value as RuleScope })}>
          {SCOPES.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
        <small className="help">
          {draft.scope === 'device'
            ? 'Only this device.'
            : 'Every device in it now, and each one that joins it later; a device that leaves it is no longer watched. Each notification and alarm names the device.'}
        </small>
      </label>
      {draft.scope === 'device' && (
        <DevicePicker
          projectId={props.projectId}
          value={draft.deviceId}
          valueName={draft.deviceId ? props.deviceName(draft.deviceId) : undefined}
          onChange={(deviceId) => onChange({ deviceId })}
          ariaLabel="Rule device"
        />
      )}
      {draft.scope === 'template' && (
        <TemplateSelect
          label="Template"
          templates={props.templates}
          value={draft.templateId}
          onChange={(templateId) => onChange({ templateId })}
          ariaLabel="Rule template"
          noneLabel="Pick a template"
        />
      )}
      {draft.scope === 'tag' && (
        <label>
          Tag
          <input
            aria-label="Rule tag"
            maxLength={50}
            placeholder="north"
            value={draft.tag}
            onChange={(e) => onChange({ tag: e.target.value })}
          />
        </label>
      )}
    </>
  );
}
