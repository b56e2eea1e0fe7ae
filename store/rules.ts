import { randomUUID } from 'node:crypto';
import { isThresholdCondition, type NotificationRule } from '../common/contracts';
import type { OutboxIntent, WrittenIntent } from '../common/outbox-intents';
import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import { boundRecords, createBoundRecord, deleteBoundRecord, isBound } from './lua/device-bound-record';
import { luaScript } from './lua/load';
import { attemptOf, replaceIfUnchanged, type Replacement } from './lua/replace-if-unchanged';
import { intentArgs, writtenIntent } from './outbox';
import { saddWithin } from './quota-ledger';
import { parseRule, readScopedRules } from './rule-records';
import { publishRulesChanged, publishScopedRulesChanged } from './rules-changed';

/** Compare-and-set that may move the rule between indexes: the intent's entry id when written, 0 changed, -1 gone, -2 refused. */
const UPDATE = luaScript('update-rule-2');
/** The new device's step of a move: its index, only while the device is in the rule's project. */
const BIND = luaScript('bind-record-2');
/** A scoped rule's project step: the project's scoped index and rules version, only while the project exists. */
const BIND_SCOPED = luaScript('bind-scoped-rule-4');
const PUT = luaScript('put-record-2');
const TAKE = luaScript('take-record-2');

/** Fields that decide when a rule fires: a change to any of them starts its edge state afresh. */
const TRIGGER_FIELDS = ['scope', 'deviceId', 'templateId', 'tag', 'pin', 'condition', 'threshold', 'enabled'] as const;
/** What a no_data timer runs by: a change to any of them re-arms it in every twin the rule covers now. */
const TIMER_FIELDS = [...TRIGGER_FIELDS, 'duration'] as const;

const scoped = (rule: NotificationRule): boolean => rule.scope !== 'device';

/** The index that binds a rule: its device's, or its project's scoped rules. */
function indexOf(rule: NotificationRule): string {
  return rule.scope === 'device' && rule.deviceId ? keys.deviceRules(rule.deviceId) : keys.projectScopedRules(rule.projectId);
}

/**
 * The rules-changed intent of a change from `before` to `after` (either null for a create or a
 * delete): the twins of device rules' devices are told now; a scoped side asks the fleet catch-up
 * (store/fleet-catch-up.ts) to arm no_data timers and to forget threshold edge state.
 */
function rulesChanged(before: NotificationRule | null, after: NotificationRule | null): OutboxIntent {
  const rule = (after ?? before) as NotificationRule;
  const deviceIds = [...new Set([before, after].flatMap((r) => (r && !scoped(r) && r.deviceId ? [r.deviceId] : [])))];
  const fleet = [before, after].some((r) => r !== null && scoped(r));
  // A change of message or channels only reaches the twins at their next step (rule-set.ts): no Update each.
  const armTimers =
    after !== null &&
    scoped(after) &&
    after.enabled &&
    after.condition === 'no_data' &&
    (before === null || TIMER_FIELDS.some((f) => before[f] !== after[f]));
  const resetEdges =
    before !== null &&
    scoped(before) &&
    isThresholdCondition(before.condition) &&
    (after === null || TRIGGER_FIELDS.some((f) => before[f] !== after[f]));
  return {
    type: 'rules-changed',
    payload: {
      projectId: rule.projectId,
      deviceIds,
      ...(fleet ? { fleet: { ruleId: rule.id, armTimers, resetEdges, changeId: randomUUID() } } : {}),
    },
  };
}

/** A rule change: null when refused (device or project gone or elsewhere, rule gone); else the rules-changed intent it wrote. */
export type RuleChange = WrittenIntent | null;

/**
 * Notification rules (DESIGN §8, §12). A device rule is bound by its device's index; a template,
 * tag or project rule by its project's scoped index, and each change to those bumps the project's
 * rules version (docs/architecture.md "Fleet rules"). Every change is announced to every gateway
 * node's threshold rule cache before the call returns, and writes, in the same step as the change,
 * a rules-changed intent for the twins it concerns.
 */
export function createRuleStore(redis: Redis, outbox: string) {
  async function announce(...rules: NotificationRule[]): Promise<void> {
    const devices = new Set(rules.flatMap((r) => (!scoped(r) && r.deviceId ? [r.deviceId] : [])));
    const projects = new Set(rules.filter(scoped).map((r) => r.projectId));
    await Promise.all([
      ...[...devices].map((id) => publishRulesChanged(redis, id)),
      ...[...projects].map((id) => publishScopedRulesChanged(redis, id)),
    ]);
  }

  /** Binds a rule to its index (its intent, if any, written with a scoped binding); false when refused. */
  async function bind(rule: NotificationRule, intent: OutboxIntent | null = null): Promise<{ bound: boolean; reply: unknown }> {
    if (!scoped(rule)) {
      const reply = await BIND(redis, [keys.device(rule.deviceId ?? ''), keys.deviceRules(rule.deviceId ?? '')], [rule.projectId, rule.id]);
      return { bound: reply === 1, reply };
    }
    const stream = streamOf(outbox, rule.projectId);
    const reply = await BIND_SCOPED(
      redis,
      [keys.project(rule.projectId), keys.projectScopedRules(rule.projectId), keys.projectRulesVersion(rule.projectId), stream],
      [rule.id, ...intentArgs(intent)],
    );
    return { bound: reply !== 0, reply };
  }

  /** Unbinds a rule from its index: a device's edge state for it goes; a scoped index change bumps the version. */
  async function unbind(rule: NotificationRule): Promise<void> {
    if (!scoped(rule) && rule.deviceId) {
      await redis.multi().srem(keys.deviceRules(rule.deviceId), rule.id).hdel(keys.deviceRuleState(rule.deviceId), rule.id).exec();
      return;
    }
    await redis.multi().srem(keys.projectScopedRules(rule.projectId), rule.id).incr(keys.projectRulesVersion(rule.projectId)).exec();
  }

  return {
    /** Stores a new rule within the project's rules `quota` (QuotaExceededError); null when its device or project is gone or elsewhere. */
    async create(rule: NotificationRule, quota: Quota): Promise<RuleChange> {
      const intent = rulesChanged(null, rule);
      if (!scoped(rule)) {
        const k = {
          outbox,
          device: keys.device(rule.deviceId ?? ''),
          record: keys.rule(rule.id),
          projectIndex: keys.projectRules(rule.projectId),
          deviceIndex: keys.deviceRules(rule.deviceId ?? ''),
        };
        const { done, written } = await createBoundRecord(redis, k, rule, quota, intent);
        if (!done) return null;
        await announce(rule);
        return written;
      }
      // Index (quota), record, then the project step that binds it and writes the intent.
      await saddWithin(redis, keys.projectRules(rule.projectId), rule.id, quota);
      await PUT(redis, [keys.rule(rule.id), streamOf(outbox, rule.id)], [JSON.stringify(rule), ...intentArgs(null)]);
      const { bound, reply } = await bind(rule, intent);
      if (!bound) {
        await redis.del(keys.rule(rule.id));
        await redis.srem(keys.projectRules(rule.projectId), rule.id);
        return null;
      }
      await announce(rule);
      return writtenIntent(reply, intent, streamOf(outbox, rule.projectId));
    },

    async get(ruleId: string): Promise<NotificationRule | null> {
      const json = await redis.get(keys.rule(ruleId));
      if (json === null) return null;
      const rule = parseRule(json);
      return (await isBound(redis, indexOf(rule), rule.id)) ? rule : null;
    },

    /** A project's template, tag and project rules, in id order. */
    scoped: (projectId: string): Promise<NotificationRule[]> => readScopedRules(redis, projectId),

    /** The rules of a project, oldest first. */
    async list(projectId: string): Promise<NotificationRule[]> {
      const ids = await redis.smembers(keys.projectRules(projectId));
      return boundRecords(redis, ids, keys.rule, indexOf, parseRule);
    },

    /**
     * Replaces a rule with `change(current)` without losing a concurrent change (see
     * replaceIfUnchanged), moving it between indexes when its scope or device changes; `refused`
     * when the new device is not (or no longer) in the rule's project, or the project is gone.
     */
    async update(
      ruleId: string,
      change: (current: NotificationRule) => Promise<NotificationRule>,
    ): Promise<Replacement<NotificationRule> & { written?: WrittenIntent | null }> {
      let written: WrittenIntent | null = null;
      // Single-slot steps (docs/architecture.md "Redis Cluster"): the new index, then the record
      // with the intent that tells the twins, then the old index and edge state. Between them the
      // rule is read through either index as the record says: readers keep only records whose
      // binding matches the index they were read through (store/rule-records.ts).
      const stream = streamOf(outbox, ruleId);
      const replaced = await replaceIfUnchanged(redis, keys.rule(ruleId), parseRule, change, async (expected, before, after) => {
        const moved = indexOf(before) !== indexOf(after);
        if (moved && !(await bind(after)).bound) return 'refused';
        const reset = !scoped(before) && before.deviceId && TRIGGER_FIELDS.some((field) => before[field] !== after[field]);
        if (reset) await redis.hdel(keys.deviceRuleState(before.deviceId ?? ''), ruleId);
        const intent = rulesChanged(before, after);
        const reply = await UPDATE(redis, [keys.rule(ruleId), stream], [expected, JSON.stringify(after), JSON.stringify(intent.payload)]);
        written = writtenIntent(reply, intent, stream);
        if (written === null) {
          if (moved) await unbind(after);
          return attemptOf(reply);
        }
        // A value judged between the reset above and the change is judged again from no edge state.
        if (reset) await redis.hdel(keys.deviceRuleState(before.deviceId ?? ''), ruleId);
        // A twin that loaded between the binding and the record's change loads again.
        if (scoped(after)) await redis.incr(keys.projectRulesVersion(after.projectId));
        if (moved) await unbind(before);
        return 'written';
      });
      if (replaced.kind !== 'replaced') return replaced;
      await announce(replaced.before, replaced.after);
      return { ...replaced, written };
    },

    /** Deletes the rule; null when it was already gone. */
    async delete(rule: NotificationRule): Promise<RuleChange> {
      const intent = rulesChanged(rule, null);
      if (!scoped(rule) && rule.deviceId) {
        const k = {
          outbox,
          record: keys.rule(rule.id),
          projectIndex: keys.projectRules(rule.projectId),
          deviceIndex: keys.deviceRules(rule.deviceId),
        };
        const { done, written } = await deleteBoundRecord(redis, k, rule.id, { alsoFrom: [keys.deviceRuleState(rule.deviceId)], intent });
        if (!done) return null;
        await announce(rule);
        return written;
      }
      const stream = streamOf(outbox, rule.id);
      const reply = await TAKE(redis, [keys.rule(rule.id), stream], intentArgs(intent));
      if (reply !== 0) await unbind(rule);
      await redis.srem(keys.projectRules(rule.projectId), rule.id);
      if (reply === 0) return null;
      await announce(rule);
      return writtenIntent(reply, intent, stream);
    },
  };
}

export type RuleStore = ReturnType<typeof createRuleStore>;
