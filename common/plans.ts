import { z } from 'zod';

/** The plans a user can be on (DESIGN §2); what each allows is set per plan in the env (common/plan-limits.ts). */
export const planSchema = z.enum(['free', 'pro', 'pro_plus', 'enterprise']);
export type Plan = z.infer<typeof planSchema>;
export const PLANS = planSchema.options;
