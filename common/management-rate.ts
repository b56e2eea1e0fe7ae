import type { Plan } from './plans';
import { planLimit, planLimitEnvShape, type PlanLimitEnv } from './plan-limits';

/**
 * The management API's rate limit per user (DESIGN §11, docs/limits.md "Management rate limit"):
 * requests per minute by the user's plan, env `QUOTA_<PLAN>_MANAGEMENT_PER_MIN` (0 means no
 * limit), scaled by RATE_LIMIT_MULTIPLIER like the external interfaces' limits.
 */
export const managementRateEnvShape = planLimitEnvShape('MANAGEMENT_PER_MIN', { free: 600, pro: 1200, pro_plus: 3000, enterprise: 6000 });

/** A plan's management requests per minute from the loaded configuration; null: no limit. */
export function managementPerMinute(
  config: Readonly<Record<PlanLimitEnv<'MANAGEMENT_PER_MIN'>, number>> & { RATE_LIMIT_MULTIPLIER: number },
  plan: Plan,
): number | null {
  const limit = planLimit(config, 'MANAGEMENT_PER_MIN', plan);
  return limit === null ? null : Math.max(1, Math.floor(limit * config.RATE_LIMIT_MULTIPLIER));
}
