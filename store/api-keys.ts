import { randomUUID } from 'node:crypto';
import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { hashSecret, newSecret } from '../common/credentials';
import { luaScript } from './lua/load';
import { saddWithin } from './quota-ledger';

const REVOKE = luaScript('revoke-api-key-1');
const TOUCH = luaScript('touch-api-key-1');

export const API_KEY_PREFIX = 'dds_';
/** lastUsedAt is refreshed at most this often. */
export const TOUCH_EVERY_MS = 60_000;

export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  /** The first characters of the key, enough for its owner to recognise it. */
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

function toApiKey(h: Record<string, string>): ApiKey | null {
  if (!h.id || !h.userId || !h.name || !h.prefix || !h.createdAt) return null;
  return {
    id: h.id,
    userId: h.userId,
    name: h.name,
    prefix: h.prefix,
    createdAt: h.createdAt,
    expiresAt: h.expiresAt ? h.expiresAt : null,
    lastUsedAt: h.lastUsedAt ? h.lastUsedAt : null,
  };
}

/** User API keys, for the external REST interface and automation of the management API (DESIGN §2); only the key's hash is stored. */
export function createApiKeyStore(redis: Redis) {
  return {
    /** Creates a key of `userId`; throws QuotaExceededError (nothing written) when they hold `quota`'s limit already. */
    async create(userId: string, name: string, expiresAt: string | null, quota: Quota): Promise<{ apiKey: ApiKey; key: string }> {
      const key = newSecret(API_KEY_PREFIX, 32);
      const hash = hashSecret(key);
      const apiKey: ApiKey = {
        id: randomUUID(),
        userId,
        name,
        prefix: key.slice(0, API_KEY_PREFIX.length + 6),
        createdAt: new Date().toISOString(),
        expiresAt,
        lastUsedAt: null,
      };
      // Three slots (docs/architecture.md "Redis Cluster"): the user's set (with the quota's check,
      // in one step) and the by-hash index first, the record last; readers of either keep only ids
      // with a record. A revoke removes the set entry last: the slot is free once the key is gone.
      await saddWithin(redis, keys.userApiKeys(userId), apiKey.id, quota);
      await redis.set(keys.apiKeyByHash(hash), apiKey.id);
      await redis.hset(keys.apiKey(apiKey.id), {
        id: apiKey.id,
        userId,
        name,
        prefix: apiKey.prefix,
        createdAt: apiKey.createdAt,
        expiresAt: expiresAt ?? '',
        hash,
      });
      return { apiKey, key };
    },

    async list(userId: string): Promise<ApiKey[]> {
      const ids = await redis.smembers(keys.userApiKeys(userId));
      const rows = await Promise.all(ids.map((id) => redis.hgetall(keys.apiKey(id))));
      return rows
        .map(toApiKey)
        .filter((k): k is ApiKey => k !== null)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },

    /** Revokes a key of this user; returns false when the user has no such key. */
    async revoke(userId: string, keyId: string): Promise<boolean> {
      const hash = await REVOKE(redis, [keys.apiKey(keyId)], [userId]);
      if (typeof hash !== 'string') return false;
      await redis.del(keys.apiKeyByHash(hash));
      await redis.srem(keys.userApiKeys(userId), keyId);
      return true;
    },

    /**
     * Records that a live key was used, at most once a minute whatever the traffic on any node: a
     * key used within the minute costs no Redis call. Resolves at once when there is nothing to do.
     */
    async touch(apiKey: ApiKey, now: Date): Promise<void> {
      if (apiKey.lastUsedAt && now.getTime() - Date.parse(apiKey.lastUsedAt) < TOUCH_EVERY_MS) return;
      await TOUCH(redis, [keys.apiKey(apiKey.id)], [now.toISOString(), new Date(now.getTime() - TOUCH_EVERY_MS).toISOString()]);
    },

    /** The live key a presented secret belongs to, or null (unknown, revoked or expired). */
    async resolve(secret: string): Promise<ApiKey | null> {
      const id = await redis.get(keys.apiKeyByHash(hashSecret(secret)));
      if (!id) return null;
      const apiKey = toApiKey(await redis.hgetall(keys.apiKey(id)));
      if (!apiKey || (apiKey.expiresAt && Date.parse(apiKey.expiresAt) <= Date.now())) return null;
      return apiKey;
    },
  };
}

export type ApiKeyStore = ReturnType<typeof createApiKeyStore>;
