import type { NotificationRule, ThresholdCondition } from '../../common/contracts';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { RULES_CHANGED_CHANNEL } from '../../store/rules-changed';
import { readDeviceRules } from '../../store/rules';
import { isThresholdCondition } from './threshold';

export type ThresholdRule = NotificationRule & { condition: ThresholdCondition; threshold: number; pin: number };

/** How long a device's rules are trusted without a change message (a safety net, not the mechanism). */
const MAX_AGE_MS = 60_000;

function isThresholdRule(rule: NotificationRule): rule is ThresholdRule {
  return rule.enabled && isThresholdCondition(rule.condition) && rule.threshold !== null && rule.pin !== null;
}

/**
 * Each gateway node's cache of the enabled threshold rules per device. A rule change publishes
 * the device id on RULES_CHANGED_CHANNEL and every node drops its entry at once.
 */
export function createThresholdRuleCache(redis: Redis, subscriber: Redis, logger: Logger) {
  const cache = new Map<string, { rules: ThresholdRule[]; loadedAt: number }>();
  /** Bumped on every change, so a load that raced a change is not cached. */
  let generation = 0;
  let ready: Promise<unknown> = subscriber.subscribe(RULES_CHANGED_CHANNEL);
  subscriber.on('message', (channel: string, deviceId: string) => {
    if (channel !== RULES_CHANGED_CHANNEL) return;
    generation++;
    cache.delete(deviceId);
  });
  subscriber.on('ready', () => {
    generation++;
    cache.clear();
    ready = subscriber.subscribe(RULES_CHANGED_CHANNEL);
  });

  async function load(deviceId: string): Promise<ThresholdRule[]> {
    const rules = await readDeviceRules(redis, deviceId, (err) => logger.warn({ err, deviceId }, 'unreadable rule skipped'));
    return rules.filter(isThresholdRule);
  }

  return {
    /** Resolves once this node listens for rule changes; a subscribe that failed (Redis down) is tried again. */
    ready: () =>
      ready
        .catch(() => {
          ready = subscriber.subscribe(RULES_CHANGED_CHANNEL);
          return ready;
        })
        .then(() => undefined),

    /** The enabled threshold rules of a device bound to a pin number. */
    async forPin(deviceId: string, pin: number): Promise<ThresholdRule[]> {
      let entry = cache.get(deviceId);
      if (!entry || Date.now() - entry.loadedAt > MAX_AGE_MS) {
        const started = generation;
        entry = { rules: await load(deviceId), loadedAt: Date.now() };
        if (generation === started) cache.set(deviceId, entry);
      }
      return entry.rules.filter((r) => r.pin === pin);
    },
  };
}

export type ThresholdRuleCache = ReturnType<typeof createThresholdRuleCache>;
