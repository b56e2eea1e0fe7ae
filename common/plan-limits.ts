import { z } from 'zod';
import type { Plan } from './plans';

/** `QUOTA_<PLAN>_<NAME>`: the env variable of one plan's limit (DESIGN §11). */
export type PlanLimitEnv<Name extends string> = `QUOTA_${Uppercase<Plan>}_${Name}`;

const PLANS = ['free', 'pro', 'pro_plus', 'enterprise'] as const satisfies readonly Plan[];

const envName = <Name extends string>(plan: Plan, name: Name): PlanLimitEnv<Name> =>
  `QUOTA_${plan.toUpperCase() as Uppercase<Plan>}_${name}`;

/**
 * The zod shape of a limit set per plan, one env variable a plan (`QUOTA_<PLAN>_<NAME>`, a number
 * ≥ 0, 0 meaning no limit), each with its default: merged into common/config.ts's schema.
 */
export function planLimitEnvShape<Name extends string>(name: Name, defaults: Record<Plan, number>, integer = true) {
  const number = integer ? z.coerce.number().int().min(0) : z.coerce.number().min(0);
  return Object.fromEntries(PLANS.map((plan) => [envName(plan, name), number.default(defaults[plan])])) as Record<
    PlanLimitEnv<Name>,
    z.ZodDefault<z.ZodCoercedNumber<unknown>>
  >;
}

/** A plan's limit from the loaded configuration; null when it is 0 (no limit). */
export function planLimit<Name extends string>(
  config: Readonly<Record<PlanLimitEnv<Name>, number>>,
  name: Name,
  plan: Plan,
): number | null {
  const limit = config[envName(plan, name)];
  return limit > 0 ? limit : null;
}
