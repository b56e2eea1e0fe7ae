import type { NotificationRule } from '../common/contracts';
import type { OutboxIntent, WrittenIntent } from '../common/outbox-intents';
import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import { publishRulesChanged } from './rules-changed';
import { boundRecords, createBoundRecord, deleteBoundRecord, isBound } from './lua/device-bound-record';
import { luaScript } from './lua/load';
import { writtenIntent } from './outbox';
import { attemptOf, replaceIfUnchanged, type Replacement } from './lua/replace-if-unchanged';

/** Compare-and-set that may move the rule between devices: the intent's entry id when written, 0 changed, -1 gone, -2 refused. */
const UPDATE = luaScript('update-rule-2');
/** The new device's step of a move: its index, only while the device is in the rule's project. */
const BIND = luaScript('bind-record-2');

/** Fields that decide when a rule fires: a change to any of them starts its edge state afresh. */
const TRIGGER_FIELDS = ['deviceId', 'pin', 'condition', 'threshold', 'enabled'] as const;

function parse(json: string): NotificationRule {
  return JSON.parse(json) as NotificationRule;
}

/**
 * Notification rules (DESIGN §8). Every change is announced to every gateway node's threshold
 * rule cache (for the old and the new device) before the call returns.
 */
function boundKeys(rule: NotificationRule, outbox: string) {
  return {
    outbox,
    device: keys.device(rule.deviceId),
    record: keys.rule(rule.id),
    projectIndex: keys.projectRules(rule.projectId),
    deviceIndex: keys.deviceRules(rule.deviceId),
  };
}

/**
 * The stored rules of a device, in id order: the one read both the gateway's threshold cache and
 * the twin's rule load use. A record that is not a JSON object, or that names another device, is skipped
 * (`onUnreadable` hears of the former).
 */
export async function readDeviceRules(
  redis: Redis,
  deviceId: string,
  onUnreadable: (err: unknown) => void = () => undefined,
): Promise<NotificationRule[]> {
  const ids = (await redis.smembers(keys.deviceRules(deviceId))).sort();
  if (ids.length === 0) return [];
  const docs = await Promise.all(ids.map((id) => redis.get(keys.rule(id))));
  return docs.flatMap((json) => {
    if (json === null) return [];
    let rule: NotificationRule;
    try {
      rule = parse(json);
    } catch (err) {
      onUnreadable(err);
      return [];
    }
    if (typeof rule !== 'object' || rule === null) return [];
    return rule.deviceId === undefined || rule.deviceId === deviceId ? [rule] : [];
  });
}

/** Tells the twins of these devices that their rules changed (carried out by the outbox relay). */
function rulesChanged(projectId: string, deviceIds: string[]): OutboxIntent {
  return { type: 'rules-changed', payload: { projectId, deviceIds: [...new Set(deviceIds)] } };
}

/** A rule change: null when refused (device gone or elsewhere, rule gone); else the twins' rules-changed intent it wrote. */
export type RuleChange = WrittenIntent | null;

/**
 * `outbox`: the outbox stream (keys.outbox). Every change writes a rules-changed intent for the
 * affected twins in the same step as the change, so a Temporal outage delays telling them and loses nothing.
 */
export function createRuleStore(redis: Redis, outbox: string) {
  const announce = (deviceIds: string[]) => Promise.all([...new Set(deviceIds)].map((id) => publishRulesChanged(redis, id)));

  return {
    /** Stores a new rule within the project's rules `quota` (QuotaExceededError); null when its device is gone or not in its project. */
    async create(rule: NotificationRule, quota: Quota): Promise<RuleChange> {
      const { done, written } = await createBoundRecord(
        redis,
        boundKeys(rule, outbox),
        rule,
        quota,
        rulesChanged(rule.projectId, [rule.deviceId]),
      );
      if (!done) return null;
      await announce([rule.deviceId]);
      return written;
    },

    async get(ruleId: string): Promise<NotificationRule | null> {
      const json = await redis.get(keys.rule(ruleId));
      if (json === null) return null;
      const rule = parse(json);
      return (await isBound(redis, keys.deviceRules(rule.deviceId), rule.id)) ? rule : null;
    },

    /** The rules of a project, oldest first. */
    async list(projectId: string): Promise<NotificationRule[]> {
      const ids = await redis.smembers(keys.projectRules(projectId));
      return boundRecords(redis, ids, keys.rule, keys.deviceRules, parse);
    },

    /**
     * Replaces a rule with `change(current)` without losing a concurrent change (see
     * replaceIfUnchanged), moving it between devices when its deviceId changes; `refused` when
     * the new device is not (or no longer) in the rule's project.
     */
    async update(
      ruleId: string,
      change: (current: NotificationRule) => Promise<NotificationRule>,
    ): Promise<Replacement<NotificationRule> & { written?: WrittenIntent | null }> {
      let written: WrittenIntent | null = null;
      // Single-slot steps (docs/architecture.md "Redis Cluster"): the new device's index, then the
      // record with the intent that tells both twins, then the old device's index and edge state.
      // Between them the rule is read through either index as the record says: readDeviceRules
      // keeps only records that name the device read.
      const stream = streamOf(outbox, ruleId);
      const replaced = await replaceIfUnchanged(redis, keys.rule(ruleId), parse, change, async (expected, before, after) => {
        const moved = before.deviceId !== after.deviceId;
        if (
          moved &&
          (await BIND(redis, [keys.device(after.deviceId), keys.deviceRules(after.deviceId)], [after.projectId, ruleId])) !== 1
        ) {
          return 'refused';
        }
        const reset = TRIGGER_FIELDS.some((field) => before[field] !== after[field]);
        if (reset) await redis.hdel(keys.deviceRuleState(before.deviceId), ruleId);
        const intent = rulesChanged(after.projectId, [before.deviceId, after.deviceId]);
        const reply = await UPDATE(redis, [keys.rule(ruleId), stream], [expected, JSON.stringify(after), JSON.stringify(intent.payload)]);
        written = writtenIntent(reply, intent, stream);
        if (written === null) {
          if (moved) await redis.srem(keys.deviceRules(after.deviceId), ruleId);
          return attemptOf(reply);
        }
        // A value judged between the reset above and the change is judged again from no edge state.
        if (reset) await redis.hdel(keys.deviceRuleState(before.deviceId), ruleId);
        if (moved)
          await redis.multi().srem(keys.deviceRules(before.deviceId), ruleId).hdel(keys.deviceRuleState(before.deviceId), ruleId).exec();
        return 'written';
      });
      if (replaced.kind !== 'replaced') return replaced;
      await announce([replaced.before.deviceId, replaced.after.deviceId]);
      return { ...replaced, written };
    },

    /** Deletes the rule; null when it was already gone. */
    async delete(rule: NotificationRule): Promise<RuleChange> {
      const { done, written } = await deleteBoundRecord(redis, boundKeys(rule, outbox), rule.id, {
        alsoFrom: [keys.deviceRuleState(rule.deviceId)],
        intent: rulesChanged(rule.projectId, [rule.deviceId]),
      });
      if (!done) return null;
      await announce([rule.deviceId]);
      return written;
    },
  };
}

export type RuleStore = ReturnType<typeof createRuleStore>;
