import { hashSecret, newSecret } from '../common/credentials';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { hdelIfEquals } from './lua/hdel-if-equals';
import { hsetWhileExists } from './lua/hset-if-exists';
import { luaScript } from './lua/load';

export const PROVISIONING_KEY_PREFIX = 'pk_';
const CLAIM_SERIALS = luaScript('claim-serials-1');

/**
 * Templates' provisioning keys and the serials provisioned from them (DESIGN §14,
 * docs/provisioning.md). A key is stored only as its hash: in the template's slot (the truth)
 * and as a lookup of its own slot (docs/architecture.md "Redis Cluster"), which counts only while
 * the template holds that hash and still exists. A serial is claimed in the template's slot
 * (claim-serials-1.lua), so two first boots with one serial, or an import and a boot, make one device.
 */
export function createProvisioningStore(redis: Redis) {
  return {
    /**
     * A new key for the template, replacing any earlier one (which stops working at once); null
     * when the template is gone. Lookup first, then the template's hash, then the old lookup goes.
     */
    async enable(templateId: string): Promise<string | null> {
      const key = newSecret(PROVISIONING_KEY_PREFIX, 24);
      const keyHash = hashSecret(key);
      const before = await redis.hget(keys.templateProvisioning(templateId), 'keyHash');
      await redis.set(keys.provisioningKey(keyHash), templateId);
      const held = await hsetWhileExists(redis, keys.template(templateId), keys.templateProvisioning(templateId), { keyHash });
      if (!held) {
        await redis.del(keys.provisioningKey(keyHash));
        return null;
      }
      if (before) await redis.del(keys.provisioningKey(before));
      return key;
    },

    /** Disables provisioning: the template's hash goes first (the key stops working), then its lookup. */
    async disable(templateId: string): Promise<void> {
      const before = await redis.hget(keys.templateProvisioning(templateId), 'keyHash');
      await redis.del(keys.templateProvisioning(templateId));
      if (before) await redis.del(keys.provisioningKey(before));
    },

    /** Whether each template has provisioning enabled, in order. */
    async enabled(templateIds: string[]): Promise<boolean[]> {
      return Promise.all(templateIds.map(async (id) => (await redis.exists(keys.templateProvisioning(id))) === 1));
    },

    /** The template a provisioning key opens now, or null (wrong, replaced or disabled key, template gone). */
    async templateOf(key: string): Promise<string | null> {
      const keyHash = hashSecret(key);
      const templateId = await redis.get(keys.provisioningKey(keyHash));
      if (templateId === null) return null;
      const [held, exists] = await Promise.all([
        redis.hget(keys.templateProvisioning(templateId), 'keyHash'),
        redis.exists(keys.template(templateId)),
      ]);
      return held === keyHash && exists === 1 ? templateId : null;
    },

    /**
     * Claims serials of a template for their devices, all or none in one atomic step (claim-serials-1.lua):
     * a first boot's one, a bulk import's rows'. Returns the serials claimed already (then nothing
     * was claimed), or [] when every claim was taken.
     */
    async claimSerials(templateId: string, claims: { serial: string; deviceId: string }[]): Promise<string[]> {
      const args = claims.flatMap(({ serial, deviceId }) => [serial, deviceId]);
      return (await CLAIM_SERIALS(redis, [keys.templateSerials(templateId)], args)) as string[];
    },

    /** Gives back claims whose devices were not made (each only while it is still its device's). */
    async releaseSerials(templateId: string, claims: { serial: string; deviceId: string }[]): Promise<void> {
      await Promise.all(claims.map(({ serial, deviceId }) => hdelIfEquals(redis, keys.templateSerials(templateId), serial, deviceId)));
    },

    /** What a template delete leaves of provisioning: its key, its lookup and its serials. */
    async forget(templateId: string): Promise<void> {
      await this.disable(templateId);
      await redis.del(keys.templateSerials(templateId));
    },
  };
}

export type ProvisioningStore = ReturnType<typeof createProvisioningStore>;
