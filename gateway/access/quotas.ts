import type { Config } from '../../common/config';
import type { Plan } from '../../common/plans';
import { AppError } from '../../common/errors';
import { QUOTA_RESOURCES, quotaOf, type Quota, type QuotaResource } from '../../common/quotas';
import type { Stores } from '../../store';

/**
 * Which quota a create is checked against (DESIGN §11, docs/limits.md "Quotas"): the plan of the
 * account that owns what is made, read at each create, so a plan change counts from the next one.
 * The check itself is the store's, atomic with the create (store/quota-ledger.ts).
 */

/** The quota of `userId`'s own plan (their projects, their API keys). */
export async function userQuota(config: Config, stores: Stores, userId: string, resource: QuotaResource): Promise<Quota> {
  const plan = await stores.users.planOf(userId);
  if (!plan) throw new AppError('UNAUTHORIZED', 'The account no longer exists');
  return quotaOf(config, plan, resource);
}

/** The quota of the plan of the project's owner, with the owner: what a create in the project counts against. */
export async function projectQuota(
  config: Config,
  stores: Stores,
  projectId: string,
  resource: QuotaResource,
): Promise<{ ownerId: string; quota: Quota }> {
  const ownerId = await stores.projects.ownerOf(projectId);
  const plan = ownerId ? await stores.users.planOf(ownerId) : null;
  if (!ownerId || !plan) throw new AppError('PROJECT_NOT_FOUND');
  return { ownerId, quota: quotaOf(config, plan, resource) };
}

/** What GET /auth/me shows of each quota (DESIGN §11): `limit` null when there is none. */
export type QuotaReport = Record<QuotaResource, { limit: number | null; used: number }>;

/** Every quota of `plan` with how much of it `userId` uses. */
export async function quotaReport(config: Config, stores: Stores, userId: string, plan: Plan): Promise<QuotaReport> {
  const used = await stores.quotaUsage.of(userId);
  return Object.fromEntries(
    QUOTA_RESOURCES.map((resource) => [resource, { limit: quotaOf(config, plan, resource).limit, used: used[resource] }]),
  ) as QuotaReport;
}
