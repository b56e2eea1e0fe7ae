import { randomUUID } from 'node:crypto';
import type { WrittenIntent } from '../common/outbox-intents';
import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { isRole, type Role } from '../common/roles';
import { deleteProjectScript } from './lua/cascade';
import { hsetIfExists } from './lua/hset-if-exists';
import { zaddWithin } from './quota-ledger';

export interface Project {
  id: string;
  name: string;
  description: string;
  createdAt: string;
}

export interface ProjectView extends Project {
  deviceCount: number;
  role: Role;
}

function toProject(h: Record<string, string>): Project | null {
  if (!h.id || h.name === undefined || !h.createdAt) return null;
  return { id: h.id, name: h.name, description: h.description ?? '', createdAt: h.createdAt };
}

/** `outbox`: the outbox stream (keys.outbox) a project delete writes its devices' retire intents to. */
export function createProjectStore(redis: Redis, outbox: string) {
  return {
    /** Creates a project owned by `ownerId`; throws QuotaExceededError (nothing written) when they own `quota`'s limit already. */
    async create(ownerId: string, name: string, description: string, quota: Quota): Promise<ProjectView> {
      const project: Project = { id: randomUUID(), name, description, createdAt: new Date().toISOString() };
      const score = Date.parse(project.createdAt);
      // Two slots (docs/architecture.md "Redis Cluster"): the owner's (their ledger of owned
      // projects, the quota's check in the same step, then their index), then the project with its
      // members in one MULTI; readers of the index keep only projects that name the user.
      await zaddWithin(redis, keys.userOwnedProjects(ownerId), score, project.id, quota);
      await redis.zadd(keys.userProjects(ownerId), score, project.id);
      await redis
        .multi()
        .hset(keys.project(project.id), { ...project })
        .hset(keys.projectMembers(project.id), ownerId, 'owner')
        .exec();
      return { ...project, deviceCount: 0, role: 'owner' };
    },

    async get(projectId: string): Promise<Project | null> {
      return toProject(await redis.hgetall(keys.project(projectId)));
    },

    /** The caller's role in a project, or null when they are not a member (or it does not exist). */
    async roleOf(projectId: string, userId: string): Promise<Role | null> {
      const role = await redis.hget(keys.projectMembers(projectId), userId);
      return isRole(role) ? role : null;
    },

    async view(project: Project, role: Role): Promise<ProjectView> {
      const deviceCount = await redis.zcard(keys.projectDevices(project.id));
      return { ...project, deviceCount, role };
    },

    /** Every project the user belongs to, oldest first, with their role and device count. */
    async listFor(userId: string): Promise<ProjectView[]> {
      const ids = await redis.zrange(keys.userProjects(userId), '0', '-1');
      // Each project in its own slot: concurrent commands, in flight together on each node's connection.
      const rows = await Promise.all(
        ids.map((id) =>
          Promise.all([redis.hgetall(keys.project(id)), redis.hget(keys.projectMembers(id), userId), redis.zcard(keys.projectDevices(id))]),
        ),
      );
      const views: ProjectView[] = [];
      for (const [hash, role, deviceCount] of rows) {
        const project = toProject(hash);
        if (!project || !isRole(role)) continue;
        views.push({ ...project, deviceCount, role });
      }
      return views;
    },

    async update(projectId: string, patch: { name?: string; description?: string }): Promise<void> {
      const fields = Object.entries(patch).filter(([, v]) => v !== undefined) as [string, string][];
      await hsetIfExists(redis, keys.project(projectId), Object.fromEntries(fields));
    },

    /** Deletes the project and everything in it in one atomic step; returns its devices' device-retire intents. */
    async delete(projectId: string): Promise<WrittenIntent[]> {
      return deleteProjectScript(redis, outbox, projectId);
    },

    /** The ids of the project's devices, oldest first. */
    async deviceIds(projectId: string): Promise<string[]> {
      return redis.zrange(keys.projectDevices(projectId), '0', '-1');
    },

    /** The user who owns the project (its creator), or null when it does not exist. */
    async ownerOf(projectId: string): Promise<string | null> {
      const members = await redis.hgetall(keys.projectMembers(projectId));
      return Object.keys(members).find((userId) => members[userId] === 'owner') ?? null;
    },

    /** True when `userId` owns the project (one field read: the owner is the creator alone and never changes, routes/members.ts). */
    async isOwner(projectId: string, userId: string): Promise<boolean> {
      return (await redis.hget(keys.projectMembers(projectId), userId)) === 'owner';
    },

    /** The projects the user is a member of: the user's index, less entries whose project does not name them (a step left halfway). */
    async projectIdsOf(userId: string): Promise<string[]> {
      const ids = await redis.zrange(keys.userProjects(userId), '0', '-1');
      const roles = await Promise.all(ids.map((id) => redis.hget(keys.projectMembers(id), userId)));
      return ids.filter((_, i) => isRole(roles[i]));
    },
  };
}

export type ProjectStore = ReturnType<typeof createProjectStore>;
