import { randomUUID } from 'node:crypto';
import type { NotificationRecord } from '../../common/contracts';
import type { AlarmEdgeIntent } from '../../common/outbox-intents';
import type { EdgeIntents, RuleEdge } from '../../store/store-point';
import type { AlarmEdgeInput } from '../../common/twin-contracts';
import { edgeState } from './threshold';
import type { ThresholdRule } from './threshold-rules';

/** A rule's severity when it does not set one. */
export const DEFAULT_SEVERITY = 'warning';

/**
 * What one value of `deviceId` means for one threshold rule covering it (docs/alarms.md): its edge state, and the outbox
 * intents its edges write. A raise writes the notification at once (as threshold rules always
 * have) unless the rule waits `forSeconds` first, in which case its twin notifies once the
 * condition has held; both edges tell the twin, which keeps the alarm record and its timers.
 * The intents are made only when the store step finds an edge (store/store-point.ts): never per value.
 */
export function ruleEdgeOf(
  rule: ThresholdRule,
  deviceId: string,
  value: string,
  at: string,
  notificationOf: (rule: ThresholdRule, deviceId: string, value: string, at: string) => NotificationRecord,
): RuleEdge | null {
  const state = edgeState(rule, value);
  if (state === null) return null;
  return { ruleId: rule.id, state, intents: () => edgeIntents(rule, deviceId, value, at, notificationOf) };
}

/** What a rule's raise and clear write for one value of `deviceId`. */
function edgeIntents(
  rule: ThresholdRule,
  deviceId: string,
  value: string,
  at: string,
  notificationOf: (rule: ThresholdRule, deviceId: string, value: string, at: string) => NotificationRecord,
): EdgeIntents {
  const notification = notificationOf(rule, deviceId, value, at);
  const waits = (rule.forSeconds ?? 0) > 0;
  const edge = (kind: AlarmEdgeInput['edge']): AlarmEdgeIntent => ({
    deviceId,
    projectId: rule.projectId,
    edge: {
      edgeId: randomUUID(),
      edge: kind,
      ruleId: rule.id,
      pin: `V${rule.pin}`,
      value,
      at,
      severity: rule.severity ?? DEFAULT_SEVERITY,
      forSeconds: rule.forSeconds ?? 0,
      renotifySeconds: rule.renotifySeconds ?? null,
      escalate: rule.escalate ?? null,
      channels: rule.channels,
      title: notification.title,
      message: notification.message,
      notified: !waits,
    },
  });
  return {
    onRaise: waits
      ? [['alarm-edge', edge('raise')]]
      : [
          ['notification', notification],
          ['alarm-edge', edge('raise')],
        ],
    onClear: [['alarm-edge', edge('clear')]],
  };
}
