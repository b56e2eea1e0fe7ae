import type { WrittenIntent } from '../../common/outbox-intents';
import type { Redis } from '../../common/redis';
import { fleetIndexes, keys, streamOf } from '../../common/redis-keys';
import { luaScript } from './load';

/**
 * Cascade deletes as single-slot steps (docs/architecture.md "Redis Cluster"). The owner's step
 * goes first: it removes every key in the owner's slot and writes the device-retire intents, so
 * from then on the thing is gone for every reader and its twins and broker accounts end even if
 * nothing after runs. Then the keys in other slots go, each step idempotent: lookups by token
 * hash, rule and widget records, the project's and the members' indexes. A crash between leaves
 * only keys that every reader already ignores (their owner is gone).
 */
const RETIRE_DEVICE = luaScript('retire-device-13');
const RETIRE_PROJECT = luaScript('retire-project-n');

interface RetiredDevice {
  entryId: string;
  projectId: string;
  /** Whose devices quota the device counted in (store/devices.ts); false for a device written without it. */
  ownerId: string | false;
  tokenHashes: { tokenHash?: string; simpleTokenHash?: string };
  rules: string[] | Record<string, never>;
  widgets: string[] | Record<string, never>;
  /** The template it had, whose device set it leaves; false when none. */
  templateId: string | false;
}

interface RetiredProject {
  members: string[] | Record<string, never>;
  /** Whose projects quota the project counted in. */
  owner: string | false;
  devices: [string, string][] | Record<string, never>;
  rules: string[] | Record<string, never>;
  widgets: string[] | Record<string, never>;
  notifications: string[] | Record<string, never>;
  templates: string[] | Record<string, never>;
}

/** cjson encodes an empty Lua table as `{}`: an empty list. */
const list = <T>(value: T[] | Record<string, never>): T[] => (Array.isArray(value) ? value : []);

function retireIntent(stream: string, deviceId: string, entryId: string): WrittenIntent {
  return { stream, entryId, intent: { type: 'device-retire', payload: { deviceId } } };
}

/** The device's step, then what it owned elsewhere; `withIntent` false when a project delete wrote its intent. */
async function retireDevice(redis: Redis, stream: string, deviceId: string, withIntent: boolean): Promise<RetiredDevice | null> {
  const reply = await RETIRE_DEVICE(
    redis,
    [
      keys.device(deviceId),
      stream,
      keys.deviceRules(deviceId),
      keys.deviceWidgets(deviceId),
      keys.deviceState(deviceId),
      keys.devicePins(deviceId),
      keys.deviceLocks(deviceId),
      keys.deviceRuleState(deviceId),
      keys.deviceWake(deviceId),
      keys.devicePending(deviceId),
      keys.deviceAlarms(deviceId),
      keys.deviceCommands(deviceId),
      keys.fleetIndex(deviceId),
    ],
    [deviceId, withIntent ? '1' : '0'],
  );
  if (typeof reply !== 'string') return null;
  const retired = JSON.parse(reply) as RetiredDevice;
  const { tokenHash, simpleTokenHash } = retired.tokenHashes;
  const rules = list(retired.rules);
  const widgets = list(retired.widgets);
  await Promise.all([
    tokenHash ? redis.del(keys.deviceByToken(tokenHash)) : null,
    simpleTokenHash ? redis.del(keys.deviceBySimpleToken(simpleTokenHash)) : null,
    ...rules.map((id) => redis.del(keys.rule(id))),
    ...widgets.map((id) => redis.del(keys.widget(id))),
  ]);
  await Promise.all([
    rules.length > 0 ? redis.srem(keys.projectRules(retired.projectId), ...rules) : null,
    widgets.length > 0 ? redis.srem(keys.projectWidgets(retired.projectId), ...widgets) : null,
  ]);
  if (retired.templateId) await redis.srem(keys.templateDevices(retired.templateId), deviceId);
  await redis.zrem(keys.projectDevices(retired.projectId), deviceId);
  // Last, as an index entry is (its quota's slot is free once nothing of the device is left).
  if (retired.ownerId) await redis.zrem(keys.userDevices(retired.ownerId), deviceId);
  return retired;
}

/**
 * Deletes a device with its credentials, pin data, rules and widgets, writing its device-retire
 * intent to its shard's outbox in the first step; null when it did not exist.
 */
export async function deleteDeviceScript(redis: Redis, outbox: string, deviceId: string): Promise<WrittenIntent | null> {
  const stream = streamOf(outbox, deviceId);
  const retired = await retireDevice(redis, stream, deviceId, true);
  return retired ? retireIntent(stream, deviceId, retired.entryId) : null;
}

/**
 * Deletes a project with its members' links, devices, rules, widgets, templates and notifications (each
 * device frees its slot of the owner's devices quota, the project its slot of their projects
 * quota); returns the device-retire intent its first step wrote for each of its devices.
 */
export async function deleteProjectScript(redis: Redis, outbox: string, projectId: string): Promise<WrittenIntent[]> {
  const stream = streamOf(outbox, projectId);
  const reply = await RETIRE_PROJECT(
    redis,
    [
      keys.project(projectId),
      stream,
      keys.projectMembers(projectId),
      keys.projectDevices(projectId),
      keys.projectRules(projectId),
      keys.projectWidgets(projectId),
      keys.projectNotifications(projectId),
      keys.projectNotificationSets(projectId),
      keys.projectTemplates(projectId),
      keys.projectScopedRules(projectId),
      keys.projectRulesVersion(projectId),
    ],
    [keys.projectMemberUnreadNotifications(projectId, '{user}')],
  );
  if (typeof reply !== 'string') return [];
  const retired = JSON.parse(reply) as RetiredProject;
  const devices = list(retired.devices);
  for (const [deviceId] of devices) await retireDevice(redis, streamOf(outbox, deviceId), deviceId, false);
  // Each device's step took its fleet index entries; the project's firmware markers (lib/fleet-index.lua) go here.
  await Promise.all(fleetIndexes().map((key) => redis.zremrangebylex(key, `[${projectId}\u0000`, `(${projectId}\u0001`)));
  await Promise.all([
    ...list(retired.members).map((userId) => redis.zrem(keys.userProjects(userId), projectId)),
    retired.owner ? redis.zrem(keys.userOwnedProjects(retired.owner), projectId) : null,
    ...list(retired.rules).map((id) => redis.del(keys.rule(id))),
    ...list(retired.widgets).map((id) => redis.del(keys.widget(id))),
    ...list(retired.notifications).map((id) => redis.del(keys.notification(id))),
    ...list(retired.templates).map((id) => redis.del(keys.template(id), keys.templateDevices(id), keys.templateWidgets(id))),
  ]);
  return devices.map(([deviceId, entryId]) => retireIntent(stream, deviceId, entryId));
}
