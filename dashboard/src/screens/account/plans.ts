import type { Plan } from '../../api/types';

/**
 * What each plan allows beyond its quotas (SPEC §8, DESIGN §9): the external REST and simple
 * interfaces and their rates. /auth/me carries the quotas but not these yet (docs/console.md "Account").
 */
export interface PlanFacts {
  name: string;
  /** Whether the external REST API (API keys) and the simple API (device tokens) answer. */
  externalApi: boolean;
  perMinute: number | null;
  perDay: number | null;
}

const PLANS: Record<string, PlanFacts> = {
  free: { name: 'Free', externalApi: false, perMinute: null, perDay: null },
  pro: { name: 'Pro', externalApi: true, perMinute: 60, perDay: 10_000 },
  pro_plus: { name: 'Pro Plus', externalApi: true, perMinute: 300, perDay: 100_000 },
  enterprise: { name: 'Enterprise', externalApi: true, perMinute: 1000, perDay: null },
};

export function planFacts(plan: Plan): PlanFacts {
  return PLANS[plan] ?? { name: plan, externalApi: true, perMinute: null, perDay: null };
}

/** "60 requests a minute, 10,000 a day" for the external interfaces of a plan that has them. */
export function rateText(facts: PlanFacts): string {
  const minute = facts.perMinute === null ? 'no per-minute limit' : `${facts.perMinute.toLocaleString()} requests a minute`;
  const day = facts.perDay === null ? 'no daily limit' : `${facts.perDay.toLocaleString()} a day`;
  return `${minute}, ${day}`;
}
