import { randomUUID } from 'node:crypto';
import type { Plan } from '../common/config';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { hsetIfExists } from './lua/hset-if-exists';
import { luaScript } from './lua/load';

export interface User {
  id: string;
  email: string;
  name: string | null;
  plan: Plan;
  createdAt: string;
}

export interface StoredUser extends User {
  passwordHash: string;
}

/** Creates the user and claims the email in one step. */
const CREATE_USER = luaScript('create-user-2');

function toUser(h: Record<string, string>): StoredUser | null {
  if (!h.id || !h.email || !h.plan || !h.createdAt || !h.passwordHash) return null;
  return {
    id: h.id,
    email: h.email,
    name: h.name ? h.name : null,
    plan: h.plan as Plan,
    createdAt: h.createdAt,
    passwordHash: h.passwordHash,
  };
}

export function publicUser(u: StoredUser): User {
  return { id: u.id, email: u.email, name: u.name, plan: u.plan, createdAt: u.createdAt };
}

export function createUserStore(redis: Redis) {
  return {
    async create(input: { email: string; name: string | null; plan: Plan; passwordHash: string }): Promise<StoredUser | null> {
      const user: StoredUser = {
        id: randomUUID(),
        email: input.email.toLowerCase(),
        name: input.name,
        plan: input.plan,
        createdAt: new Date().toISOString(),
        passwordHash: input.passwordHash,
      };
      const created = await CREATE_USER(
        redis,
        [keys.user(user.id), keys.userByEmail(user.email)],
        [user.id, user.email, user.name ?? '', user.plan, user.createdAt, user.passwordHash],
      );
      return created === 1 ? user : null;
    },

    async get(userId: string): Promise<StoredUser | null> {
      return toUser(await redis.hgetall(keys.user(userId)));
    },

    async findByEmail(email: string): Promise<StoredUser | null> {
      const id = await redis.get(keys.userByEmail(email));
      return id ? this.get(id) : null;
    },

    /** Sets the plan of an existing user; returns false when there is no such user. */
    async setPlan(userId: string, plan: Plan): Promise<boolean> {
      return hsetIfExists(redis, keys.user(userId), { plan });
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
