import type { NotificationRule, ThresholdCondition } from '../../common/contracts';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import type { IngestStore } from '../../store/ingest-store';
import { RULES_CHANGED_CHANNEL } from '../../store/rules-changed';
import { isThresholdCondition } from './threshold';

export type ThresholdRule = NotificationRule & { condition: ThresholdCondition; threshold: number; pin: number };

/**
 * How long a device's rules are trusted without a change message (a safety net, not the
 * mechanism): older ones are still used while one reload runs in the background, so the values of
 * every device do not wait on a rule read together each time the safety net comes round.
 */
const MAX_AGE_MS = 60_000;

const NONE: readonly ThresholdRule[] = [];

function isThresholdRule(rule: NotificationRule): rule is ThresholdRule {
  return rule.enabled && isThresholdCondition(rule.condition) && rule.threshold !== null && rule.pin !== null;
}

/**
 * Each gateway node's cache of the enabled threshold rules per device, by pin number. A rule change
 * publishes the device id on RULES_CHANGED_CHANNEL and every node drops its entry at once: the
 * next value of that device waits for the reload, values of other devices read memory only.
 */
export function createThresholdRuleCache(store: Pick<IngestStore, 'readRules'>, subscriber: Redis, logger: Logger) {
  const cache = new Map<string, { byPin: Map<number, ThresholdRule[]>; loadedAt: number }>();
  /** Loads under way, so the values of one device arriving together share one read. */
  const loading = new Map<string, Promise<Map<number, ThresholdRule[]>>>();
  /** Bumped on every change, so a load that raced a change is not cached. */
  let generation = 0;
  let ready: Promise<unknown> = subscriber.subscribe(RULES_CHANGED_CHANNEL);
  subscriber.on('message', (channel: string, deviceId: string) => {
    if (channel !== RULES_CHANGED_CHANNEL) return;
    generation++;
    cache.delete(deviceId);
    loading.delete(deviceId);
  });
  subscriber.on('ready', () => {
    generation++;
    cache.clear();
    loading.clear();
    ready = subscriber.subscribe(RULES_CHANGED_CHANNEL);
  });

  /** Reads a device's rules and caches them, unless a change came meanwhile (then the next value reads again). */
  function load(deviceId: string): Promise<Map<number, ThresholdRule[]>> {
    const under = loading.get(deviceId);
    if (under) return under;
    const started = generation;
    const read = store
      .readRules(deviceId, (err) => logger.warn({ err, deviceId }, 'unreadable rule skipped'))
      .then((rules) => {
        const byPin = new Map<number, ThresholdRule[]>();
        for (const rule of rules.filter(isThresholdRule)) byPin.set(rule.pin, [...(byPin.get(rule.pin) ?? []), rule]);
        if (generation === started) cache.set(deviceId, { byPin, loadedAt: Date.now() });
        return byPin;
      })
      .finally(() => {
        if (loading.get(deviceId) === read) loading.delete(deviceId);
      });
    loading.set(deviceId, read);
    return read;
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
    async forPin(deviceId: string, pin: number): Promise<readonly ThresholdRule[]> {
      const entry = cache.get(deviceId);
      if (!entry) return (await load(deviceId)).get(pin) ?? NONE;
      if (Date.now() - entry.loadedAt > MAX_AGE_MS && !loading.has(deviceId)) {
        load(deviceId).catch((err: unknown) => logger.warn({ err, deviceId }, 'threshold rules not reloaded; the loaded ones still apply'));
      }
      return entry.byPin.get(pin) ?? NONE;
    },
  };
}

export type ThresholdRuleCache = ReturnType<typeof createThresholdRuleCache>;
