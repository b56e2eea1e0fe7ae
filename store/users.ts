import { randomUUID } from 'node:crypto';
import type { Plan } from '../common/plans';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { hsetIfExists } from './lua/hset-if-exists';
import { luaScript } from './lua/load';

export interface User {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  /** Whether the current email was verified (DESIGN §11); notification email goes only to verified addresses. */
  emailVerified: boolean;
  createdAt: string;
}

export interface StoredUser extends User {
  passwordHash: string;
}

/** Claims an email's user index for a new user (a dangling claim may be taken over). */
const CLAIM = luaScript('claim-1');

function toUser(h: Record<string, string>): StoredUser | null {
  if (!h.id || !h.email || !h.plan || !h.createdAt || !h.passwordHash) return null;
  return {
    id: h.id,
    email: h.email,
    name: h.name ? h.name : null,
    plan: h.plan as Plan,
    emailVerified: h.verifiedEmail === h.email,
    createdAt: h.createdAt,
    passwordHash: h.passwordHash,
  };
}

export function publicUser(u: StoredUser): User {
  return { id: u.id, email: u.email, name: u.name, plan: u.plan, emailVerified: u.emailVerified, createdAt: u.createdAt };
}

export function createUserStore(redis: Redis) {
  /** False when a user holds the email; a claim whose user was never written is taken over. */
  async function claimEmail(emailKey: string, userId: string): Promise<boolean> {
    if ((await CLAIM(redis, [emailKey], [userId, ''])) === 1) return true;
    const holder = await redis.get(emailKey);
    if (holder !== null && (await redis.exists(keys.user(holder))) === 1) return false;
    return (await CLAIM(redis, [emailKey], [userId, holder ?? ''])) === 1;
  }

  return {
    async create(input: { email: string; name: string | null; plan: Plan; passwordHash: string }): Promise<StoredUser | null> {
      const user: StoredUser = {
        id: randomUUID(),
        email: input.email.toLowerCase(),
        name: input.name,
        plan: input.plan,
        emailVerified: false,
        createdAt: new Date().toISOString(),
        passwordHash: input.passwordHash,
      };
      // Two slots (docs/architecture.md "Redis Cluster"): the email's index first, then the user.
      const emailKey = keys.userByEmail(user.email);
      if (!(await claimEmail(emailKey, user.id))) return null;
      await redis.hset(keys.user(user.id), {
        id: user.id,
        email: user.email,
        name: user.name ?? '',
        plan: user.plan,
        createdAt: user.createdAt,
        passwordHash: user.passwordHash,
      });
      // A sign-up that found this claim before the user above existed took it over: this one gives way.
      if ((await redis.get(emailKey)) !== user.id) {
        await redis.del(keys.user(user.id));
        return null;
      }
      return user;
    },

    async get(userId: string): Promise<StoredUser | null> {
      return toUser(await redis.hgetall(keys.user(userId)));
    },

    /** The user's plan, without the rest of the record; null when there is no such user. */
    async planOf(userId: string): Promise<Plan | null> {
      const [id, plan] = await redis.hmget(keys.user(userId), 'id', 'plan');
      return id === userId && plan ? (plan as Plan) : null;
    },

    async findByEmail(email: string): Promise<StoredUser | null> {
      const id = await redis.get(keys.userByEmail(email));
      return id ? this.get(id) : null;
    },

    /**
     * Records `email` as verified for an existing user; returns false when there is no such user.
     * The field holds the address, so a user whose email is another by now is not verified.
     */
    async markEmailVerified(userId: string, email: string): Promise<boolean> {
      return hsetIfExists(redis, keys.user(userId), { verifiedEmail: email });
    },

    /** Sets the plan of an existing user; returns false when there is no such user. */
    async setPlan(userId: string, plan: Plan): Promise<boolean> {
      return hsetIfExists(redis, keys.user(userId), { plan });
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
