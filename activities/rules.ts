import type { NotificationChannel, NotificationRule } from '../common/contracts';
import { parsePin } from '../common/pins';
import type { Redis } from '../common/redis';
import { ruleCovers, TWIN_CONDITIONS } from '../common/rule-scope';
import type { TwinRule } from '../common/twin-contracts';
import { readHeartbeat } from '../store/heartbeat';
import { readDeviceRules, readRuleSubject, readRulesVersion, readScopedRules } from '../store/rule-records';

const CHANNELS = new Set<NotificationChannel>(['inApp', 'push', 'email']);

/** The twin's view of one stored rule, or null when the twin does not watch it (threshold, disabled, malformed). */
export function toTwinRule(rule: Partial<NotificationRule>): TwinRule | null {
  if (typeof rule.id !== 'string' || !rule.enabled || !TWIN_CONDITIONS.has(rule.condition ?? '')) return null;
  const condition = rule.condition as TwinRule['condition'];
  let pin: string | null = null;
  if (rule.pin !== null && rule.pin !== undefined) {
    const parsed = parsePin(rule.pin);
    if (!parsed) return null;
    pin = parsed.name;
  }
  let duration: number | null = null;
  if (condition === 'no_data') {
    if (typeof rule.duration !== 'number' || !(rule.duration > 0)) return null;
    duration = rule.duration;
  }
  const forSeconds = condition !== 'no_data' && typeof rule.forSeconds === 'number' && rule.forSeconds > 0 ? rule.forSeconds : null;
  return {
    id: rule.id,
    condition,
    pin: condition === 'no_data' ? pin : null,
    duration,
    ...(forSeconds ? { forSeconds } : {}),
    message: typeof rule.message === 'string' ? rule.message : '',
    channels: (Array.isArray(rule.channels) ? rule.channels : ['inApp']).filter((c): c is NotificationChannel =>
      CHANNELS.has(c as NotificationChannel),
    ),
  };
}

/** What a twin watches by: its rules, its heartbeat as set (null: the default), and the project rules version they were read at. */
export interface TwinRuleSet {
  rules: TwinRule[];
  heartbeatTimeoutS: number | null;
  rulesVersion: string;
}

/**
 * The enabled no_data / offline / online rules that cover a device (its own, then its project's
 * template, tag and project rules that cover it: common/rule-scope.ts), in id order each, with its
 * heartbeat; null when the device is gone. The version is read first, so a change landing during
 * the read leaves the twin at the older version, and it reloads at its next step.
 */
export async function readTwinRuleSet(redis: Redis, deviceId: string): Promise<TwinRuleSet | null> {
  const subject = await readRuleSubject(redis, deviceId);
  if (subject === null) return null;
  const rulesVersion = await readRulesVersion(redis, subject.projectId);
  const [own, scoped, heartbeatTimeoutS] = await Promise.all([
    readDeviceRules(redis, deviceId),
    readScopedRules(redis, subject.projectId),
    readHeartbeat(redis, deviceId),
  ]);
  const rules = [...own, ...scoped.filter((rule) => ruleCovers(rule, subject))].flatMap((rule) => toTwinRule(rule) ?? []);
  return { rules, heartbeatTimeoutS, rulesVersion };
}
