import type { NotificationRule, ThresholdCondition } from '../../common/contracts';
import { isThresholdCondition } from '../../common/contracts';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { ruleCovers } from '../../common/rule-scope';
import type { IngestStore } from '../../store/ingest-store';
import { RULES_CHANGED_CHANNEL, SCOPED_RULES_CHANGED_CHANNEL } from '../../store/rules-changed';
import { createReloadingCache } from './reloading-cache';

export type ThresholdRule = NotificationRule & { condition: ThresholdCondition; threshold: number; pin: number };

/** How long rules are trusted without a change message (a safety net, not the mechanism). */
const MAX_AGE_MS = 60_000;

const NONE: readonly ThresholdRule[] = [];
const CHANNELS = [RULES_CHANGED_CHANNEL, SCOPED_RULES_CHANGED_CHANNEL];

function isThresholdRule(rule: NotificationRule): rule is ThresholdRule {
  return rule.enabled && isThresholdCondition(rule.condition) && rule.threshold !== null && rule.pin !== null;
}

/** Enabled threshold rules by pin number. */
function byPin(rules: NotificationRule[]): Map<number, ThresholdRule[]> {
  const out = new Map<number, ThresholdRule[]>();
  for (const rule of rules.filter(isThresholdRule)) out.set(rule.pin, [...(out.get(rule.pin) ?? []), rule]);
  return out;
}

/**
 * Each gateway node's cache of the enabled threshold rules (DESIGN §8, §12): per device, its own
 * rules and what scopes ask of it (its project, template and tags); per project, its template, tag
 * and project rules. A change publishes the device (RULES_CHANGED_CHANNEL: its rules, tags or
 * template) or the project (SCOPED_RULES_CHANGED_CHANNEL) and every node drops that entry: a value
 * reads memory only, whatever the number of rules in its project (docs/architecture.md "Fleet rules").
 */
export function createThresholdRuleCache(store: Pick<IngestStore, 'readRuleSet' | 'readScopedRules'>, subscriber: Redis, logger: Logger) {
  const unreadable = (key: string) => (err: unknown) => logger.warn({ err, key }, 'unreadable rule skipped');
  const staleFailed = (err: unknown, key: string) => logger.warn({ err, key }, 'threshold rules not reloaded; the loaded ones still apply');
  const devices = createReloadingCache(
    async (deviceId) => {
      const set = await store.readRuleSet(deviceId, unreadable(deviceId));
      return set && { subject: set.subject, byPin: byPin(set.rules) };
    },
    MAX_AGE_MS,
    staleFailed,
  );
  const projects = createReloadingCache(
    async (projectId) => byPin(await store.readScopedRules(projectId, unreadable(projectId))),
    MAX_AGE_MS,
    staleFailed,
  );

  let ready: Promise<unknown> = subscriber.subscribe(...CHANNELS);
  subscriber.on('message', (channel: string, id: string) => {
    if (channel === RULES_CHANGED_CHANNEL) devices.invalidate(id);
    if (channel === SCOPED_RULES_CHANGED_CHANNEL) projects.invalidate(id);
  });
  subscriber.on('ready', () => {
    devices.clear();
    projects.clear();
    ready = subscriber.subscribe(...CHANNELS);
  });

  return {
    /** Resolves once this node listens for rule changes; a subscribe that failed (Redis down) is tried again. */
    ready: () =>
      ready
        .catch(() => {
          ready = subscriber.subscribe(...CHANNELS);
          return ready;
        })
        .then(() => undefined),

    /** The enabled threshold rules that cover a device on a pin number: its own, then its project's scoped ones. */
    async forPin(deviceId: string, pin: number): Promise<readonly ThresholdRule[]> {
      const device = await devices.get(deviceId);
      if (!device) return NONE;
      const own = device.byPin.get(pin) ?? NONE;
      const scoped = (await projects.get(device.subject.projectId)).get(pin);
      if (!scoped) return own;
      const covering = scoped.filter((rule) => ruleCovers(rule, device.subject));
      return covering.length === 0 ? own : [...own, ...covering];
    },
  };
}

export type ThresholdRuleCache = ReturnType<typeof createThresholdRuleCache>;
