import { z } from 'zod';
import {
  ALARM_SEVERITIES,
  type AlarmSettings,
  isThresholdCondition,
  type NotificationRule,
  type RuleScope,
  THRESHOLD_CONDITIONS,
} from '../../common/contracts';

/** The longest silence a no_data rule may wait for: 30 days. */
export const MAX_NO_DATA_DURATION_S = 30 * 86_400;

const condition = z.enum([...THRESHOLD_CONDITIONS, 'no_data', 'offline', 'online']);
const deviceId = z.uuid().nullable();
const templateId = z.uuid().nullable();
/** A device tag (gateway/routes/devices.ts). */
const tag = z.string().trim().min(1).max(50).nullable();
/** A V pin number (SPEC §2.7). */
const pin = z.int().min(0).max(255).nullable();
const threshold = z.number().nullable();
const duration = z.int().min(1).max(MAX_NO_DATA_DURATION_S).nullable();
const message = z.string().trim().min(1).max(500);
const channels = z
  .array(z.enum(['inApp', 'push', 'email']))
  .min(1)
  .refine((list) => new Set(list).size === list.length, 'must not repeat a channel');
const enabled = z.boolean();

// ---- Alarm settings (docs/alarms.md): optional, stored only when given ----------------------------

/** The longest forSeconds, renotifySeconds or escalation delay: 30 days. */
export const MAX_ALARM_DELAY_S = 30 * 86_400;
const delay = (min: number) => z.int().min(min).max(MAX_ALARM_DELAY_S).nullable();
const alarmFields = {
  clearThreshold: z.number().nullable(),
  forSeconds: delay(0),
  severity: z.enum(ALARM_SEVERITIES).nullable(),
  renotifySeconds: delay(60),
  escalate: z.strictObject({ afterSeconds: z.int().min(1).max(MAX_ALARM_DELAY_S), channels }).nullable(),
};
const optionalAlarmFields = {
  clearThreshold: alarmFields.clearThreshold.optional(),
  forSeconds: alarmFields.forSeconds.optional(),
  severity: alarmFields.severity.optional(),
  renotifySeconds: alarmFields.renotifySeconds.optional(),
  escalate: alarmFields.escalate.optional(),
};
type AlarmField = keyof typeof alarmFields;
/** Which conditions each alarm setting applies to: threshold conditions, and forSeconds also offline/online. */
const appliesTo = (field: AlarmField, condition: string): boolean =>
  isThresholdCondition(condition) || (field === 'forSeconds' && (condition === 'offline' || condition === 'online'));
/** The side clearThreshold must be on: at or below the threshold for gt/gte, at or above for lt/lte; eq/neq have none. */
function clearThresholdProblem(condition: string, threshold: number | null, clear: number): string | null {
  if (threshold === null) return null;
  if (condition === 'gt' || condition === 'gte')
    return clear <= threshold ? null : `must not be above the threshold for condition ${condition}`;
  if (condition === 'lt' || condition === 'lte')
    return clear >= threshold ? null : `must not be below the threshold for condition ${condition}`;
  return `is not allowed for condition ${condition}`;
}

/** What a client sends to create a rule; `ruleDefinition` then checks it as a whole. */
export const createRuleBody = z.object({
  projectId: z.uuid(),
  deviceId: deviceId.default(null),
  templateId: templateId.default(null),
  tag: tag.default(null),
  condition,
  pin: pin.default(null),
  threshold: threshold.default(null),
  duration: duration.default(null),
  message,
  channels: channels.default(['inApp']),
  enabled: enabled.default(true),
  ...optionalAlarmFields,
});

/**
 * Any field but the id, the project and the creation time. `deviceId`, `templateId` and `tag` name
 * the rule's scope together: one given (null included) replaces the others with null.
 */
export const patchRuleBody = z
  .strictObject({
    deviceId: deviceId.optional(),
    templateId: templateId.optional(),
    tag: tag.optional(),
    condition: condition.optional(),
    pin: pin.optional(),
    threshold: threshold.optional(),
    duration: duration.optional(),
    message: message.optional(),
    channels: channels.optional(),
    enabled: enabled.optional(),
    ...optionalAlarmFields,
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required');

export type RuleDefinition = Omit<NotificationRule, 'id' | 'projectId' | 'createdAt'>;

const SCOPE_FIELDS = ['deviceId', 'templateId', 'tag'] as const;

/** A PATCH's scope fields: when one is given, those not given become null. */
export function scopeChange(patch: Partial<Record<(typeof SCOPE_FIELDS)[number], string | null>>): Partial<Record<string, null>> {
  return SCOPE_FIELDS.some((f) => patch[f] !== undefined) ? Object.fromEntries(SCOPE_FIELDS.map((f) => [f, null])) : {};
}

/** The scope the fields name: the device, the template, the tag, or (none) the whole project. */
function scopeOfFields(rule: { deviceId: string | null; templateId: string | null; tag: string | null }): RuleScope {
  if (rule.deviceId !== null) return 'device';
  if (rule.templateId !== null) return 'template';
  return rule.tag !== null ? 'tag' : 'project';
}

/**
 * A rule's fields checked together (DESIGN §8, §12): at most one of deviceId, templateId and tag
 * (none: the whole project), which gives its `scope`; threshold conditions need `pin` and `threshold`,
 * `no_data` needs `duration` and may name a pin (null = any data), `offline`/`online` need
 * neither. Fields a condition does not use are stored null.
 */
export const ruleDefinition = z
  .object({ deviceId, templateId, tag, condition, pin, threshold, duration, message, channels, enabled, ...optionalAlarmFields })
  .superRefine((rule, ctx) => {
    const named = SCOPE_FIELDS.filter((f) => rule[f] !== null);
    if (named.length > 1) {
      ctx.addIssue({ code: 'custom', path: [named[1] as string], message: 'give at most one of deviceId, templateId and tag' });
    }
    const need = (field: 'pin' | 'threshold' | 'duration') => {
      if (rule[field] === null) ctx.addIssue({ code: 'custom', path: [field], message: `is required for condition ${rule.condition}` });
    };
    if (isThresholdCondition(rule.condition)) {
      need('pin');
      need('threshold');
    }
    if (rule.condition === 'no_data') need('duration');
    for (const field of Object.keys(alarmFields) as AlarmField[]) {
      const value = rule[field];
      if (value === undefined || value === null) continue;
      if (!appliesTo(field, rule.condition)) {
        ctx.addIssue({ code: 'custom', path: [field], message: `is not allowed for condition ${rule.condition}` });
      }
    }
    if (typeof rule.clearThreshold === 'number' && isThresholdCondition(rule.condition)) {
      const problem = clearThresholdProblem(rule.condition, rule.threshold, rule.clearThreshold);
      if (problem) ctx.addIssue({ code: 'custom', path: ['clearThreshold'], message: problem });
    }
  })
  .transform(
    (rule): RuleDefinition => ({
      scope: scopeOfFields(rule),
      deviceId: rule.deviceId,
      templateId: rule.templateId,
      tag: rule.tag,
      pin: rule.condition === 'offline' || rule.condition === 'online' ? null : rule.pin,
      condition: rule.condition,
      threshold: isThresholdCondition(rule.condition) ? rule.threshold : null,
      duration: rule.condition === 'no_data' ? rule.duration : null,
      message: rule.message,
      channels: rule.channels,
      enabled: rule.enabled,
      ...alarmSettingsOf(rule),
    }),
  );

/** The alarm settings a rule stores: those given (null clears one); none that its condition does not use. */
function alarmSettingsOf(rule: AlarmSettings & { condition: string }): AlarmSettings {
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(alarmFields) as AlarmField[]) {
    if (rule[field] !== undefined) out[field] = appliesTo(field, rule.condition) ? rule[field] : null;
  }
  return out as AlarmSettings;
}
