import type { Plan } from './plans';
import { planLimit, planLimitEnvShape, type PlanLimitEnv } from './plan-limits';

/**
 * A device's values per second by its owner's plan (DESIGN §11, docs/limits.md "A device's
 * values"): beyond it a device's values are dropped and counted. Env
 * `QUOTA_<PLAN>_DEVICE_VALUES_PER_S`; 0 means no limit.
 */
export const deviceRateEnvShape = planLimitEnvShape('DEVICE_VALUES_PER_S', { free: 5, pro: 50, pro_plus: 500, enterprise: 0 }, false);

/** A plan's device values per second from the loaded configuration; null: no limit. */
export function deviceValuesPerSecond(config: Readonly<Record<PlanLimitEnv<'DEVICE_VALUES_PER_S'>, number>>, plan: Plan): number | null {
  return planLimit(config, 'DEVICE_VALUES_PER_S', plan);
}
