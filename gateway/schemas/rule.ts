import { z } from 'zod';
import type { NotificationRule } from '../../common/contracts';
import { isThresholdCondition, THRESHOLD_CONDITIONS } from '../ingest/threshold';

/** The longest silence a no_data rule may wait for: 30 days. */
export const MAX_NO_DATA_DURATION_S = 30 * 86_400;

const condition = z.enum([...THRESHOLD_CONDITIONS, 'no_data', 'offline', 'online']);
const deviceId = z.uuid();
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

/** What a client sends to create a rule; `ruleDefinition` then checks it as a whole. */
export const createRuleBody = z.object({
  projectId: z.uuid(),
  deviceId,
  condition,
  pin: pin.default(null),
  threshold: threshold.default(null),
  duration: duration.default(null),
  message,
  channels: channels.default(['inApp']),
  enabled: enabled.default(true),
});

/** Any field but the id, the project and the creation time. */
export const patchRuleBody = z
  .strictObject({
    deviceId: deviceId.optional(),
    condition: condition.optional(),
    pin: pin.optional(),
    threshold: threshold.optional(),
    duration: duration.optional(),
    message: message.optional(),
    channels: channels.optional(),
    enabled: enabled.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'at least one field is required');

export type RuleDefinition = Omit<NotificationRule, 'id' | 'projectId' | 'createdAt'>;

/**
 * A rule's fields checked together (DESIGN §8): threshold conditions need `pin` and `threshold`,
 * `no_data` needs `duration` and may name a pin (null = any data), `offline`/`online` need
 * neither. Fields a condition does not use are stored null.
 */
export const ruleDefinition = z
  .object({ deviceId, condition, pin, threshold, duration, message, channels, enabled })
  .superRefine((rule, ctx) => {
    const need = (field: 'pin' | 'threshold' | 'duration') => {
      if (rule[field] === null) ctx.addIssue({ code: 'custom', path: [field], message: `is required for condition ${rule.condition}` });
    };
    if (isThresholdCondition(rule.condition)) {
      need('pin');
      need('threshold');
    }
    if (rule.condition === 'no_data') need('duration');
  })
  .transform(
    (rule): RuleDefinition => ({
      deviceId: rule.deviceId,
      pin: rule.condition === 'offline' || rule.condition === 'online' ? null : rule.pin,
      condition: rule.condition,
      threshold: isThresholdCondition(rule.condition) ? rule.threshold : null,
      duration: rule.condition === 'no_data' ? rule.duration : null,
      message: rule.message,
      channels: rule.channels,
      enabled: rule.enabled,
    }),
  );
