import type { WrittenIntent } from '../../common/outbox-intents';
import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { luaScript } from './load';

/**
 * Cascade deletes, run inside Redis so a device or a project disappears in one atomic step
 * (cascade-device-n.lua, cascade-project-n.lua). The scripts get the key scheme as templates built
 * from common/redis-keys.ts ({id}, {hash} stand for the parts), so the scheme is written down once.
 */
const templates = JSON.stringify({
  device: keys.device('{id}'),
  deviceOwned: [
    keys.deviceState('{id}'),
    keys.devicePins('{id}'),
    keys.deviceLocks('{id}'),
    keys.deviceRules('{id}'),
    keys.deviceRuleState('{id}'),
    keys.deviceWake('{id}'),
    keys.devicePending('{id}'),
    keys.deviceWidgets('{id}'),
    keys.deviceAlarms('{id}'),
    keys.deviceCommands('{id}'),
  ],
  devicePins: keys.devicePins('{id}'),
  deviceRules: keys.deviceRules('{id}'),
  rule: keys.rule('{id}'),
  deviceWidgets: keys.deviceWidgets('{id}'),
  widget: keys.widget('{id}'),
  notification: keys.notification('{id}'),
  byToken: keys.deviceByToken('{hash}'),
  bySimpleToken: keys.deviceBySimpleToken('{hash}'),
  project: keys.project('{id}'),
  projectMembers: keys.projectMembers('{id}'),
  projectDevices: keys.projectDevices('{id}'),
  projectRules: keys.projectRules('{id}'),
  projectWidgets: keys.projectWidgets('{id}'),
  projectNotifications: keys.projectNotifications('{id}'),
  projectMemberUnreadNotifications: keys.projectMemberUnreadNotifications('{id}', '{user}'),
  userProjects: keys.userProjects('{id}'),
});

const CASCADE_DEVICE = luaScript('cascade-device-n');
const CASCADE_PROJECT = luaScript('cascade-project-n');

function retireIntent(deviceId: string, entryId: string): WrittenIntent {
  return { entryId, intent: { type: 'device-retire', payload: { deviceId } } };
}

/**
 * Deletes a device with its credentials, pin data, history, rules and widgets, writing its
 * device-retire intent to `outbox` in the same step; null when it did not exist.
 */
export async function deleteDeviceScript(redis: Redis, outbox: string, deviceId: string): Promise<WrittenIntent | null> {
  const reply = await CASCADE_DEVICE(redis, [keys.device(deviceId), outbox], [templates, deviceId]);
  return typeof reply === 'string' ? retireIntent(deviceId, reply) : null;
}

/**
 * Deletes a project with its members' links, devices, rules, widgets and notifications; returns
 * the device-retire intent each of its devices wrote to `outbox` in the same step.
 */
export async function deleteProjectScript(redis: Redis, outbox: string, projectId: string): Promise<WrittenIntent[]> {
  const reply = (await CASCADE_PROJECT(redis, [keys.project(projectId), outbox], [templates, projectId])) as string[];
  const retired: WrittenIntent[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) retired.push(retireIntent(reply[i] as string, reply[i + 1] as string));
  return retired;
}
