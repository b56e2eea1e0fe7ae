import type { NotificationChannel, RuleCondition, RuleScope, ScopedRule } from '../../api/types';

/** Every condition of DESIGN §8 and the fields it needs. */
export const CONDITIONS: Array<{
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
export const CHANNELS: NotificationChannel[] = ['inApp', 'push', 'email'];
export const SEVERITIES = ['critical', 'major', 'minor', 'warning', 'info'] as const;

/** The scopes a rule can have (DESIGN §12), as the form offers them. */
export const SCOPES: Array<{ value: RuleScope; label: string }> = [
  { value: 'device', label: 'One device' },
  { value: 'template', label: 'Every device of a template' },
  { value: 'tag', label: 'Every device with a tag' },
  { value: 'project', label: 'Every device in the project' },
];

export interface Draft {
  id: string | null;
  scope: RuleScope;
  /** The scope's target; only the one of `scope` is sent. */
  deviceId: string;
  templateId: string;
  tag: string;
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

export const conditionOf = (value: RuleCondition) => CONDITIONS.find((x) => x.value === value);

export const emptyDraft = (scope: RuleScope): Draft => ({
  id: null,
  scope,
  deviceId: '',
  templateId: '',
  tag: '',
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

export const draftOf = (r: ScopedRule): Draft => ({
  id: r.id,
  scope: r.scope ?? 'device',
  deviceId: r.deviceId ?? '',
  templateId: r.templateId ?? '',
  tag: r.tag ?? '',
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

/**
 * The scope's fields: the chosen target; a PATCH also sends null for the other two (so a changed
 * scope drops its old target), a create leaves them out (a project rule sends none).
 */
function scopeBody(draft: Draft, patch: boolean): Record<string, string | null> {
  const all: Record<string, string | null> = {
    deviceId: draft.scope === 'device' ? draft.deviceId : null,
    templateId: draft.scope === 'template' ? draft.templateId : null,
    tag: draft.scope === 'tag' ? draft.tag.trim() : null,
  };
  return patch ? all : Object.fromEntries(Object.entries(all).filter(([, v]) => v !== null));
}

/** What a save sends for the draft: a PATCH when it has an id, else a create. */
export function bodyOf(draft: Draft): Record<string, unknown> {
  const c = conditionOf(draft.condition);
  return {
    ...scopeBody(draft, draft.id !== null),
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
}

/** What a scope's target misses before the draft can be saved, or null. */
export function scopeProblem(draft: Draft): string | null {
  if (draft.scope === 'device' && !draft.deviceId) return 'Pick the device the rule watches';
  if (draft.scope === 'template' && !draft.templateId) return 'Pick the template whose devices the rule watches';
  if (draft.scope === 'tag' && !draft.tag.trim()) return 'Type the tag of the devices the rule watches';
  return null;
}

export function describe(rule: ScopedRule): string {
  const c = conditionOf(rule.condition);
  if (!c) return rule.condition;
  if (c.threshold) return `V${rule.pin} ${c.label.replace('value ', '').replace('threshold', String(rule.threshold))}`;
  if (c.duration) return `no data ${rule.pin === null ? 'from the device' : `on V${rule.pin}`} for ${rule.duration}s`;
  return c.label;
}
