import { z } from 'zod';
import type { Plan } from './config';

/**
 * The management API's rate limit per user (DESIGN §11, docs/limits.md "Management rate limit"):
 * requests per minute by the user's plan, each default overridable by env
 * `QUOTA_<PLAN>_MANAGEMENT_PER_MIN` (0 means no limit), scaled by RATE_LIMIT_MULTIPLIER like the
 * external interfaces' limits.
 */
const ENV = {
  free: 'QUOTA_FREE_MANAGEMENT_PER_MIN',
  pro: 'QUOTA_PRO_MANAGEMENT_PER_MIN',
  pro_plus: 'QUOTA_PRO_PLUS_MANAGEMENT_PER_MIN',
  enterprise: 'QUOTA_ENTERPRISE_MANAGEMENT_PER_MIN',
} as const satisfies Record<Plan, string>;

type ManagementRateEnvName = (typeof ENV)[Plan];

const perMinute = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

/** The zod shape of the four variables, merged into common/config.ts's schema. */
export const managementRateEnvShape = {
  QUOTA_FREE_MANAGEMENT_PER_MIN: perMinute(600),
  QUOTA_PRO_MANAGEMENT_PER_MIN: perMinute(1200),
  QUOTA_PRO_PLUS_MANAGEMENT_PER_MIN: perMinute(3000),
  QUOTA_ENTERPRISE_MANAGEMENT_PER_MIN: perMinute(6000),
} satisfies Record<ManagementRateEnvName, z.ZodType>;

/** A plan's management requests per minute from the loaded configuration; null: no limit. */
export function managementPerMinute(
  config: Readonly<Record<ManagementRateEnvName, number>> & { RATE_LIMIT_MULTIPLIER: number },
  plan: Plan,
): number | null {
  const limit = config[ENV[plan]];
  return limit > 0 ? Math.max(1, Math.floor(limit * config.RATE_LIMIT_MULTIPLIER)) : null;
}
