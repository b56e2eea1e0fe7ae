import { QuotaExceededError } from '../common/errors';
import type { Quota } from '../common/quotas';
import type { Redis } from '../common/redis';
import { luaScript } from './lua/load';

/**
 * Plan quotas (DESIGN §11, docs/limits.md "Quotas"): a create takes its slot in the index it
 * writes first (a project's rules, an account's API keys, an account's ledger of owned projects
 * or devices), with the check that the index holds fewer than the limit in the same atomic step.
 * Refused, nothing is written and QuotaExceededError is thrown; a delete frees the slot when it
 * removes the index entry (its last step).
 */
const SADD_WITHIN = luaScript('sadd-within-1');
const ZADD_WITHIN = luaScript('zadd-within-1');

function taken(quota: Quota, reply: unknown): void {
  const [added, used] = reply as [number, number];
  if (added !== 1) throw new QuotaExceededError({ resource: quota.resource, limit: quota.limit ?? 0, used });
}

/** Adds `member` to the set `key` within `quota`; throws QuotaExceededError when the set is full. */
export async function saddWithin(redis: Redis, key: string, member: string, quota: Quota): Promise<void> {
  taken(quota, await SADD_WITHIN(redis, [key], [member, quota.limit ?? 0]));
}

/**
 * Adds every member (each scored) to the sorted set `key` within `quota`, all or none (a bulk
 * import's rows); throws QuotaExceededError when they would not all fit.
 */
export async function zaddAllWithin(redis: Redis, key: string, members: { score: number; member: string }[], quota: Quota): Promise<void> {
  const args = members.flatMap(({ score, member }) => [score, member]);
  taken(quota, await ZADD_WITHIN(redis, [key], [quota.limit ?? 0, ...args]));
}

/** Adds `member` (scored by `score`) to the sorted set `key` within `quota`; throws QuotaExceededError when it is full. */
export async function zaddWithin(redis: Redis, key: string, score: number, member: string, quota: Quota): Promise<void> {
  await zaddAllWithin(redis, key, [{ score, member }], quota);
}
