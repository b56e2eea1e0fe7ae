import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { hashSecret, newSecret } from '../common/credentials';

export interface Session {
  userId: string;
  expiresAt: string;
}

/** Bearer access tokens: only their hash is stored, and Redis expires them. */
export function createSessionStore(redis: Redis, ttlSeconds: number) {
  return {
    async issue(userId: string): Promise<{ accessToken: string; expiresAt: string }> {
      const accessToken = newSecret('sess_', 32);
      const expiresAtMs = Date.now() + ttlSeconds * 1000;
      const expiresAt = new Date(expiresAtMs).toISOString();
      const key = keys.session(hashSecret(accessToken));
      await redis.multi().hset(key, 'userId', userId, 'expiresAt', expiresAt).pexpireat(key, expiresAtMs).exec();
      return { accessToken, expiresAt };
    },

    async resolve(accessToken: string): Promise<Session | null> {
      const h = await redis.hgetall(keys.session(hashSecret(accessToken)));
      if (!h.userId || !h.expiresAt || Date.parse(h.expiresAt) <= Date.now()) return null;
      return { userId: h.userId, expiresAt: h.expiresAt };
    },

    async revoke(accessToken: string): Promise<void> {
      await redis.del(keys.session(hashSecret(accessToken)));
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
