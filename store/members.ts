import { QuotaExceededError } from '../common/errors';
import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { isRole, type Role } from '../common/roles';
import { hsetIfExists } from './lua/hset-if-exists';
import { luaScript } from './lua/load';

const ADD_MEMBER = luaScript('add-member-4');

/**
 * How many of the project's newest notifications a new member starts with unread: the bound of
 * every notification read (page × limit ≤ 10,000, DESIGN §11), so adding a member copies at most
 * that many whatever the project holds.
 */
export const NEW_MEMBER_UNREAD_MAX = 10_000;

export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
}

/**
 * Project membership: the project's member hash, each user's project index and the member's own
 * unread notifications. The user's index is in the user's slot, the rest in the project's: two
 * steps, the index written first and removed last, and its readers keep only projects whose
 * member hash names the user (docs/architecture.md "Redis Cluster").
 */
export function createMemberStore(redis: Redis) {
  return {
    async list(projectId: string): Promise<Member[]> {
      const roles = await redis.hgetall(keys.projectMembers(projectId));
      const entries = Object.entries(roles).filter((e): e is [string, Role] => isRole(e[1]));
      const users = await Promise.all(entries.map(([userId]) => redis.hmget(keys.user(userId), 'email', 'name')));
      return entries.map(([userId, role], i) => ({
        userId,
        email: users[i]?.[0] ?? '',
        name: users[i]?.[1] ? (users[i]?.[1] as string) : null,
        role,
      }));
    },

    /**
     * Adds a member within the project's members `quota` (checked in the same step); returns false
     * when the user already belongs to the project (or it is gone). Throws QuotaExceededError,
     * nothing added, when the project has its quota of members.
     */
    async add(projectId: string, userId: string, role: Role, quota: Quota): Promise<boolean> {
      await redis.zadd(keys.userProjects(userId), 'NX', Date.now(), projectId);
      const [added, used] = (await ADD_MEMBER(
        redis,
        [
          keys.projectMembers(projectId),
          keys.project(projectId),
          keys.projectMemberUnreadNotifications(projectId, userId),
          keys.projectNotifications(projectId),
        ],
        [userId, role, quota.limit ?? 0, NEW_MEMBER_UNREAD_MAX],
      )) as [number, number];
      // Not a member (the project gone, or full): the index entry goes again.
      if (added < 0) await redis.zrem(keys.userProjects(userId), projectId);
      if (added === -2) throw new QuotaExceededError({ resource: quota.resource, limit: quota.limit ?? 0, used });
      return added === 1;
    },

    async setRole(projectId: string, userId: string, role: Role): Promise<void> {
      await hsetIfExists(redis, keys.projectMembers(projectId), { [userId]: role });
    },

    async remove(projectId: string, userId: string): Promise<void> {
      await redis.multi().hdel(keys.projectMembers(projectId), userId).del(keys.projectMemberUnreadNotifications(projectId, userId)).exec();
      await redis.zrem(keys.userProjects(userId), projectId);
    },
  };
}

export type MemberStore = ReturnType<typeof createMemberStore>;
