/**
 * Which devices a rule covers (DESIGN §12): the one implementation the gateway's threshold rule
 * cache, the twin's rule load and the fleet catch-up all call. No Node imports: shared with the
 * workers.
 */
import type { NotificationRule } from './contracts';

/** What a device is, as far as rule scopes ask: its id, template and tags. */
export interface RuleSubject {
  deviceId: string;
  templateId: string | null;
  tags: readonly string[];
}

/** Whether `rule` applies to `subject` (a device of the rule's project). */
export function ruleCovers(rule: Pick<NotificationRule, 'scope' | 'deviceId' | 'templateId' | 'tag'>, subject: RuleSubject): boolean {
  switch (rule.scope) {
    case 'device':
      return rule.deviceId === subject.deviceId;
    case 'template':
      return rule.templateId !== null && rule.templateId === subject.templateId;
    case 'tag':
      return rule.tag !== null && subject.tags.includes(rule.tag);
    case 'project':
      return true;
  }
}

/** The conditions a device's twin watches (no_data timers, offline and online transitions); the gateway judges the others. */
export const TWIN_CONDITIONS: ReadonlySet<string> = new Set(['no_data', 'offline', 'online']);

/** Whether the twin watches `rule`: enabled, of a twin condition. */
export function watchedByTwin(rule: Pick<NotificationRule, 'enabled' | 'condition'>): boolean {
  return rule.enabled && TWIN_CONDITIONS.has(rule.condition);
}
