import type { NotificationRule } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { ruleCovers, type RuleSubject } from '../common/rule-scope';

/** A stored rule; records written before scopes existed are device rules. */
export function parseRule(json: string): NotificationRule {
  const raw = JSON.parse(json) as Partial<NotificationRule>;
  return { scope: 'device', templateId: null, tag: null, ...raw } as NotificationRule;
}

/** The records of `ids` that parse and that `keep` accepts, in id order; `onUnreadable` hears of the others. */
async function readRecords(
  redis: Redis,
  ids: string[],
  keep: (rule: NotificationRule) => boolean,
  onUnreadable: (err: unknown) => void,
): Promise<NotificationRule[]> {
  if (ids.length === 0) return [];
  const sorted = [...ids].sort();
  const docs = await Promise.all(sorted.map((id) => redis.get(keys.rule(id))));
  return docs.flatMap((json) => {
    if (json === null) return [];
    let rule: NotificationRule;
    try {
      rule = parseRule(json);
    } catch (err) {
      onUnreadable(err);
      return [];
    }
    return typeof rule === 'object' && rule !== null && keep(rule) ? [rule] : [];
  });
}

/**
 * The stored rules bound to a device, in id order: records that name another device or moved to a
 * scope meanwhile (a move between two steps) are skipped.
 */
export async function readDeviceRules(
  redis: Redis,
  deviceId: string,
  onUnreadable: (err: unknown) => void = () => undefined,
): Promise<NotificationRule[]> {
  const ids = await redis.smembers(keys.deviceRules(deviceId));
  return readRecords(redis, ids, (r) => r.scope === 'device' && (r.deviceId === undefined || r.deviceId === deviceId), onUnreadable);
}

/** A project's template, tag and project rules, in id order (records that moved to a device meanwhile are skipped). */
export async function readScopedRules(
  redis: Redis,
  projectId: string,
  onUnreadable: (err: unknown) => void = () => undefined,
): Promise<NotificationRule[]> {
  const ids = await redis.smembers(keys.projectScopedRules(projectId));
  return readRecords(redis, ids, (r) => r.scope !== 'device' && r.projectId === projectId, onUnreadable);
}

/** A device as rule scopes see it (its project, template and tags), or null when it is gone. */
export async function readRuleSubject(redis: Redis, deviceId: string): Promise<(RuleSubject & { projectId: string }) | null> {
  const [projectId, templateId, tags] = await redis.hmget(keys.device(deviceId), 'projectId', 'templateId', 'tags');
  if (!projectId) return null;
  return { deviceId, projectId, templateId: templateId || null, tags: tags ? (JSON.parse(tags) as string[]) : [] };
}

/** A project's rules version (keys.projectRulesVersion): '0' before its first scoped change. */
export async function readRulesVersion(redis: Redis, projectId: string): Promise<string> {
  return (await redis.get(keys.projectRulesVersion(projectId))) ?? '0';
}

/** The devices of a project, oldest first. */
async function projectDeviceIds(redis: Redis, projectId: string): Promise<string[]> {
  return redis.zrange(keys.projectDevices(projectId), '0', '-1');
}

/** Forgets one rule's threshold edge state on every device of its project (a scoped rule's trigger changed, or it went). */
export async function forgetEdgeState(redis: Redis, projectId: string, ruleId: string): Promise<void> {
  const ids = await projectDeviceIds(redis, projectId);
  // Each device in its own slot: concurrent commands, in flight together.
  await Promise.all(ids.map((id) => redis.hdel(keys.deviceRuleState(id), ruleId)));
}

/** The devices of a project `rule` covers now (ruleCovers), in their project's order. */
export async function devicesCovered(redis: Redis, rule: NotificationRule): Promise<string[]> {
  const ids = await projectDeviceIds(redis, rule.projectId);
  const subjects = await Promise.all(ids.map((id) => readRuleSubject(redis, id)));
  return subjects.flatMap((s) => (s !== null && s.projectId === rule.projectId && ruleCovers(rule, s) ? [s.deviceId] : []));
}
