import { randomUUID } from 'node:crypto';
import type { FleetRuleChange } from '../common/outbox-intents';
import type { Redis } from '../common/redis';
import { keys, streamOf } from '../common/redis-keys';
import { luaScript } from './lua/load';
import { intentArgs } from './outbox';
import { devicesCovered, forgetEdgeState, parseRule } from './rule-records';

/** Twins told per rules-changed intent the catch-up writes: told together in one relay attempt, and all told again when one of them fails. */
export const CATCH_UP_CHUNK = 25;
/** How long a change's catch-up is remembered as done: far longer than any relay retries it. */
const CAUGHT_UP_TTL_S = 86_400;
const CATCH_UP_ONCE = luaScript('catch-up-once-2');

/**
 * The fleet catch-up of a template, tag or project rule's change (docs/architecture.md "Fleet
 * rules"): a threshold rule's edge state is forgotten on every device of the project (Redis only),
 * and a no_data rule's covered devices get rules-changed intents of CATCH_UP_CHUNK twins each, so
 * the relays of every node tell them, a chunk at a time per node, at once rather than at each
 * twin's next step. The rule is read as it is now (a later change wrote its own intent). The
 * chunks of one change are written once, however often its intent is carried out.
 */
export async function fleetCatchUp(redis: Redis, outbox: string, projectId: string, change: FleetRuleChange): Promise<number> {
  if (change.resetEdges) await forgetEdgeState(redis, projectId, change.ruleId);
  if (!change.armTimers) return 0;
  const json = await redis.get(keys.rule(change.ruleId));
  const rule = json === null ? null : parseRule(json);
  if (rule === null || rule.scope === 'device' || rule.projectId !== projectId || !rule.enabled || rule.condition !== 'no_data') return 0;
  if ((await redis.sismember(keys.projectScopedRules(projectId), rule.id)) !== 1) return 0;
  const covered = await devicesCovered(redis, rule);
  // An entry written before changes had ids is caught up each time it is carried out, as it was then.
  return catchUpTwins(redis, outbox, projectId, covered, change.changeId ?? randomUUID());
}

/**
 * Writes rules-changed intents of CATCH_UP_CHUNK of `deviceIds` each into the project's outbox,
 * once per `changeId` (store/lua/catch-up-once-2.lua): the twins told reload their rules. Returns
 * the twins it asked to tell (0 when this change was caught up already).
 */
export async function catchUpTwins(
  redis: Redis,
  outbox: string,
  projectId: string,
  deviceIds: string[],
  changeId: string,
): Promise<number> {
  if (deviceIds.length === 0) return 0;
  const chunks: string[] = [];
  for (let i = 0; i < deviceIds.length; i += CATCH_UP_CHUNK) {
    chunks.push(...intentArgs({ type: 'rules-changed', payload: { projectId, deviceIds: deviceIds.slice(i, i + CATCH_UP_CHUNK) } }));
  }
  const marker = keys.fleetCaughtUp(projectId, changeId);
  const written = Number(await CATCH_UP_ONCE(redis, [marker, streamOf(outbox, projectId)], [String(CAUGHT_UP_TTL_S), ...chunks]));
  return written === 0 ? 0 : deviceIds.length;
}
