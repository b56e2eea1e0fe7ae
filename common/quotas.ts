import { z } from 'zod';

/**
 * Plan quotas (DESIGN §11, docs/limits.md "Quotas"): what one account may own, counted against
 * the project owner's plan. Each default is overridable by env `QUOTA_<PLAN>_<RESOURCE>`
 * (e.g. QUOTA_FREE_DEVICES); 0 means no limit.
 */
export const QUOTA_RESOURCES = ['projects', 'devices', 'members', 'rules', 'widgets', 'templates', 'apiKeys'] as const;
export type QuotaResource = (typeof QUOTA_RESOURCES)[number];

const QUOTA_PLANS = ['free', 'pro', 'pro_plus', 'enterprise'] as const;
type QuotaPlan = (typeof QUOTA_PLANS)[number];

/** The resources counted per project rather than per account: a create is checked against its own project. */
export const PER_PROJECT: ReadonlySet<QuotaResource> = new Set(['members', 'rules', 'widgets', 'templates']);

/** How a message names a resource: `apiKeys` is "API keys". */
export function quotaLabel(resource: QuotaResource): string {
  return resource === 'apiKeys' ? 'API keys' : resource;
}

/** DESIGN §11's table; 0 = no limit (enterprise). */
const DEFAULTS: Record<QuotaPlan, Record<QuotaResource, number>> = {
  free: { projects: 5, devices: 10, members: 5, rules: 50, widgets: 100, templates: 5, apiKeys: 2 },
  pro: { projects: 20, devices: 500, members: 20, rules: 500, widgets: 1000, templates: 50, apiKeys: 10 },
  pro_plus: { projects: 100, devices: 5000, members: 100, rules: 5000, widgets: 5000, templates: 200, apiKeys: 50 },
  enterprise: { projects: 0, devices: 0, members: 0, rules: 0, widgets: 0, templates: 0, apiKeys: 0 },
};

/** Each resource's word in its env variable. */
const ENV_WORD = {
  projects: 'PROJECTS',
  devices: 'DEVICES',
  members: 'MEMBERS',
  rules: 'RULES',
  widgets: 'WIDGETS',
  templates: 'TEMPLATES',
  apiKeys: 'API_KEYS',
} as const satisfies Record<QuotaResource, string>;

export type QuotaEnvName = `QUOTA_${Uppercase<QuotaPlan>}_${(typeof ENV_WORD)[QuotaResource]}`;

/** The env variable of one quota, e.g. `QUOTA_FREE_DEVICES`. */
function quotaEnvName(plan: QuotaPlan, resource: QuotaResource): QuotaEnvName {
  return `QUOTA_${plan.toUpperCase() as Uppercase<QuotaPlan>}_${ENV_WORD[resource]}`;
}

/** The zod shape of every quota variable (a whole number, 0 = no limit), merged into common/config.ts's schema. */
export const quotaEnvShape = Object.fromEntries(
  QUOTA_PLANS.flatMap((plan) =>
    QUOTA_RESOURCES.map((resource) => [quotaEnvName(plan, resource), z.coerce.number().int().min(0).default(DEFAULTS[plan][resource])]),
  ),
) as Record<QuotaEnvName, z.ZodDefault<z.ZodCoercedNumber<unknown>>>;

/** A quota a create is checked against: null = no limit. */
export interface Quota {
  resource: QuotaResource;
  limit: number | null;
}

/** The quota of a plan from the loaded configuration (its env variables, defaults included). */
export function quotaOf(config: Readonly<Record<QuotaEnvName, number>>, plan: QuotaPlan, resource: QuotaResource): Quota {
  const limit = config[quotaEnvName(plan, resource)];
  return { resource, limit: limit > 0 ? limit : null };
}
