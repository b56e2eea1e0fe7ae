import type { Redis } from '../../common/redis';
import { StoreError } from '../errors';
import { luaScript } from './load';

/**
 * What one compare-and-set attempt found: written; the document moved on meanwhile; it is gone;
 * or the write's own precondition failed (refused).
 */
export type Attempt = 'written' | 'changed' | 'gone' | 'refused';

export type Replacement<T> = { kind: 'replaced'; before: T; after: T } | { kind: 'gone' } | { kind: 'refused' };

/** Writes `after` only while the stored JSON document is still `expected`. */
export type Write<T> = (expected: string, before: T, after: T) => Promise<Attempt>;

/** Script replies: 1 written, 0 changed, -1 gone, -2 refused. */
export function attemptOf(reply: unknown): Attempt {
  if (reply === 1) return 'written';
  if (reply === 0) return 'changed';
  return reply === -2 ? 'refused' : 'gone';
}

const COMPARE_AND_SET = luaScript('compare-and-set-1');

const MAX_ATTEMPTS = 5;

/**
 * Read-change-write of a JSON document without lost updates: the write succeeds only if nobody
 * changed the document since it was read; otherwise `change` runs again on the newer one, so it
 * may throw (a validation error) and may have side effects only if they are idempotent.
 */
export async function replaceIfUnchanged<T>(
  redis: Redis,
  key: string,
  parse: (json: string) => T,
  change: (current: T) => Promise<T>,
  write: Write<T> = async (expected, _before, after) => attemptOf(await COMPARE_AND_SET(redis, [key], [expected, JSON.stringify(after)])),
): Promise<Replacement<T>> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const json = await redis.get(key);
    if (json === null) return { kind: 'gone' };
    const before = parse(json);
    const after = await change(before);
    const outcome = await write(json, before, after);
    if (outcome === 'written') return { kind: 'replaced', before, after };
    if (outcome !== 'changed') return { kind: outcome };
  }
  throw new StoreError('KEPT_CHANGING');
}
