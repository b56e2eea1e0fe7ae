import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { hashSecret, newSecret } from '../common/credentials';

export interface Session {
  /** The session's id: the hash its token is stored under, safe to name it by (rooms, logs). */
  id: string;
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
      const id = hashSecret(accessToken);
      const h = await redis.hgetall(keys.session(id));
      if (!h.userId || !h.expiresAt || Date.parse(h.expiresAt) <= Date.now()) return null;
      return { id, userId: h.userId, expiresAt: h.expiresAt };
    },

    /** Whether the session with this id still exists (it was neither revoked nor expired). */
    async isLive(sessionId: string): Promise<boolean> {
      return (await redis.exists(keys.session(sessionId))) === 1;
    },

    /** Ends the session at once; returns its id, so whatever it opened (sockets) can be closed too. */
    async revoke(accessToken: string): Promise<string> {
      const id = hashSecret(accessToken);
      await redis.del(keys.session(id));
      return id;
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
