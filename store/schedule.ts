import type { Redis } from '../common/redis';
import { luaScript } from './lua/load';

const CLAIM = luaScript('claim-due-1');
const UNSCHEDULE = luaScript('unschedule-if-1');

/**
 * A schedule in Redis shared by every node: members due at a time (a sorted set scored in epoch
 * ms). A node claims what is due (pushed on by a lease, so nobody else takes it meanwhile), then
 * either takes it off or schedules it again.
 */
export function createSchedule(redis: Redis, key: string) {
  return {
    /** Due now (a member already scheduled keeps the earlier time). */
    async add(member: string, at = Date.now()): Promise<void> {
      await redis.zadd(key, 'LT', at, member);
    },
    /** Up to `max` members due at `now`, each now leased for `leaseMs`; `score` is what each claim holds. */
    async claimDue(now: number, leaseMs: number, max: number): Promise<{ members: string[]; score: number }> {
      const [members, score] = (await CLAIM(redis, [key], [now, leaseMs, max])) as [string[], string];
      return { members, score: Number(score) };
    },
    /** Due again at `at`. */
    async reschedule(member: string, at: number): Promise<void> {
      await redis.zadd(key, 'XX', at, member);
    },
    /** Off the schedule, unless scheduled again since the claim that held `score`. */
    async remove(member: string, score: number): Promise<void> {
      await UNSCHEDULE(redis, [key], [member, score]);
    },
  };
}

export type Schedule = ReturnType<typeof createSchedule>;
