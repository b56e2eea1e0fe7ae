import { randomUUID } from 'node:crypto';
import type { Template, TemplateView } from '../common/contracts';
import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { heartbeatTimeoutOf } from '../common/liveness';
import { keys } from '../common/redis-keys';
import { catchUpTwins } from './fleet-catch-up';
import { luaScript } from './lua/load';
import { replaceIfUnchanged, type Replacement } from './lua/replace-if-unchanged';
import { saddWithin } from './quota-ledger';

const CLAIM = luaScript('claim-template-2');
const DELETE = luaScript('delete-template-2');

/** A template as read: the stored record and how many devices have it. */

/** What a delete found: deleted, in use by `devices` devices, or already gone. */
export type TemplateDelete = { kind: 'deleted' } | { kind: 'in-use'; devices: number } | { kind: 'gone' };

const parse = (json: string): Template => JSON.parse(json) as Template;

/**
 * Device templates (DESIGN §12). The record and its device set share the template's slot; the
 * project's index is another (docs/architecture.md "Redis Cluster"): a create takes its slot in the
 * index first (the project's templates quota, checked in the same step), then writes the record; a
 * delete removes the record first, the index entry last. Readers keep only ids whose record exists.
 * A change to a template's heartbeat bumps its project's rules version, so its devices' twins
 * reload what they watch by at their next step (docs/architecture.md "Fleet rules"); a shorter one
 * also tells each of them now (the fleet catch-up), so its liveness watch starts again at it.
 */
export function createTemplateStore(redis: Redis, outbox: string, defaultHeartbeatS: number) {
  async function withCounts(templates: Template[]): Promise<TemplateView[]> {
    const [counts, enabled] = await Promise.all([
      Promise.all(templates.map((t) => redis.scard(keys.templateDevices(t.id)))),
      Promise.all(templates.map((t) => redis.exists(keys.templateProvisioning(t.id)))),
    ]);
    return templates.map((t, i) => ({ ...t, deviceCount: counts[i] ?? 0, provisioning: { enabled: enabled[i] === 1 } }));
  }

  return {
    /** Stores a new template within the project's templates `quota` (QuotaExceededError). */
    async create(template: Template, quota: Quota): Promise<TemplateView> {
      await saddWithin(redis, keys.projectTemplates(template.projectId), template.id, quota);
      await redis.set(keys.template(template.id), JSON.stringify(template));
      return { ...template, deviceCount: 0, provisioning: { enabled: false } };
    },

    async get(templateId: string): Promise<TemplateView | null> {
      const json = await redis.get(keys.template(templateId));
      return json === null ? null : ((await withCounts([parse(json)]))[0] ?? null);
    },

    /** The templates of a project, oldest first. */
    async list(projectId: string): Promise<TemplateView[]> {
      const ids = await redis.smembers(keys.projectTemplates(projectId));
      const docs = await Promise.all(ids.map((id) => redis.get(keys.template(id))));
      const templates = docs.flatMap((json) => (json === null ? [] : [parse(json)]));
      templates.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
      return withCounts(templates);
    },

    /** Replaces a template with `change(current)` without losing a concurrent change. */
    async update(templateId: string, change: (current: Template) => Promise<Template>): Promise<Replacement<Template>> {
      const replaced = await replaceIfUnchanged(redis, keys.template(templateId), parse, change);
      if (replaced.kind === 'replaced' && replaced.before.heartbeatTimeoutS !== replaced.after.heartbeatTimeoutS) {
        const { before, after } = replaced;
        await redis.incr(keys.projectRulesVersion(after.projectId));
        if (
          heartbeatTimeoutOf(after.heartbeatTimeoutS, defaultHeartbeatS) < heartbeatTimeoutOf(before.heartbeatTimeoutS, defaultHeartbeatS)
        ) {
          const devices = await redis.smembers(keys.templateDevices(after.id));
          await catchUpTwins(redis, outbox, after.projectId, devices, randomUUID());
        }
      }
      return replaced;
    },

    /** Deletes a template no device has; its project index entry goes last. */
    async delete(template: Template): Promise<TemplateDelete> {
      const [outcome, devices] = (await DELETE(redis, [keys.template(template.id), keys.templateDevices(template.id)], [])) as [
        number,
        number,
      ];
      if (outcome === 0) return { kind: 'in-use', devices };
      await redis.srem(keys.projectTemplates(template.projectId), template.id);
      return outcome === 1 ? { kind: 'deleted' } : { kind: 'gone' };
    },

    /** Counts a device among a template's devices; false when the template is gone. */
    async claim(templateId: string, deviceId: string): Promise<boolean> {
      return this.claimAll(templateId, [deviceId]);
    },

    /** Counts devices among a template's devices in one step (a bulk import's); false when the template is gone. */
    async claimAll(templateId: string, deviceIds: string[]): Promise<boolean> {
      return (await CLAIM(redis, [keys.template(templateId), keys.templateDevices(templateId)], deviceIds)) === 1;
    },

    /** The devices no longer have the template. */
    async release(templateId: string, ...deviceIds: string[]): Promise<void> {
      await redis.srem(keys.templateDevices(templateId), ...deviceIds);
    },
  };
}

export type TemplateStore = ReturnType<typeof createTemplateStore>;
