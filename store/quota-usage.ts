import type { QuotaResource } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';

/**
 * How much of each quota an account uses (GET /auth/me, docs/limits.md "Quotas"): the sizes of the
 * indexes the creates check (store/quota-ledger.ts). A per-project resource reports the fullest of
 * the projects the account owns, the one nearest its limit.
 */
export function createQuotaUsage(redis: Redis) {
  return {
    async of(userId: string): Promise<Record<QuotaResource, number>> {
      const [owned, devices, apiKeys] = await Promise.all([
        redis.zrange(keys.userOwnedProjects(userId), '0', '-1'),
        redis.zcard(keys.userDevices(userId)),
        redis.scard(keys.userApiKeys(userId)),
      ]);
      // Each project in its own slot: concurrent commands, in flight together.
      const perProject = await Promise.all(
        owned.map((id) =>
          Promise.all([
            redis.hlen(keys.projectMembers(id)),
            redis.scard(keys.projectRules(id)),
            redis.scard(keys.projectWidgets(id)),
            redis.scard(keys.projectTemplates(id)),
          ]),
        ),
      );
      const fullest = (column: 0 | 1 | 2 | 3) => Math.max(0, ...perProject.map((counts) => counts[column]));
      return {
        projects: owned.length,
        devices,
        members: fullest(0),
        rules: fullest(1),
        widgets: fullest(2),
        templates: fullest(3),
        apiKeys,
      };
    },
  };
}

export type QuotaUsage = ReturnType<typeof createQuotaUsage>;
