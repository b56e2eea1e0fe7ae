import type { AlarmSeverity, ThresholdCondition } from '../../common/contracts';

const CONDITION_WORDS: Readonly<Record<ThresholdCondition, string>> = {
  gt: 'above',
  gte: 'at or above',
  lt: 'below',
  lte: 'at or below',
  eq: 'equal to',
  neq: 'not equal to',
};

const SEVERITY_WORDS: Readonly<Record<AlarmSeverity, string>> = {
  critical: 'Critical',
  major: 'Major',
  minor: 'Minor',
  warning: 'Warning',
  info: 'Info',
};

/** A threshold notification's title, as a person reads it: `Critical: V1 above 30`. */
export function thresholdTitle(severity: AlarmSeverity, pin: string, condition: ThresholdCondition, threshold: number): string {
  return `${SEVERITY_WORDS[severity]}: ${pin} ${CONDITION_WORDS[condition]} ${threshold}`;
}

/** A pin value as a finite number (`"21.5"`, `"true"` → 1, `"false"` → 0), or null when it is not one. */
export function numericValue(value: string): number | null {
  const text = value.trim().toLowerCase();
  if (text === 'true') return 1;
  if (text === 'false') return 0;
  if (text === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** Whether a value is inside a threshold condition; null when the value is not numeric (state unchanged). */
export function insideCondition(condition: ThresholdCondition, threshold: number, value: string): boolean | null {
  const n = numericValue(value);
  if (n === null) return null;
  switch (condition) {
    case 'gt':
      return n > threshold;
    case 'gte':
      return n >= threshold;
    case 'lt':
      return n < threshold;
    case 'lte':
      return n <= threshold;
    case 'eq':
      return n === threshold;
    case 'neq':
      return n !== threshold;
  }
}

/**
 * A threshold rule's edge state for a value, with hysteresis: '1' inside the condition, '0'
 * outside and past the clear threshold, '=' in the band between (the state stays what it was).
 * Without a clear threshold there is no band. Null when the value is not numeric.
 */
export function edgeState(
  rule: { condition: ThresholdCondition; threshold: number; clearThreshold?: number | null },
  value: string,
): '1' | '0' | '=' | null {
  const inside = insideCondition(rule.condition, rule.threshold, value);
  if (inside === null) return null;
  if (inside) return '1';
  const clear = rule.clearThreshold;
  if (clear === null || clear === undefined) return '0';
  const n = numericValue(value) as number;
  const past =
    rule.condition === 'gt' || rule.condition === 'gte'
      ? n < clear
      : rule.condition === 'lt' || rule.condition === 'lte'
        ? n > clear
        : true;
  return past ? '0' : '=';
}
