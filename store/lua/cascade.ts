import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';
import { luaScript } from './load';

/**
 * Cascade deletes, run inside Redis so a device or a project disappears in one atomic step
 * (cascade-device-n.lua, cascade-project-n.lua). The scripts get the key scheme as templates built
 * from common/redis-keys.ts ({id}, {pin}, {hash} stand for the parts), so the scheme is written down once.
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
  pinHistory: keys.pinHistory('{id}', '{pin}'),
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

/** Deletes a device with its credentials, pin data, history, rules and widgets; false when it did not exist. */
export async function deleteDeviceScript(redis: Redis, deviceId: string): Promise<boolean> {
  return (await CASCADE_DEVICE(redis, [keys.device(deviceId)], [templates, deviceId])) === 1;
}

/** Deletes a project with its members' links, devices, rules, widgets and notifications; returns the deleted device ids. */
export async function deleteProjectScript(redis: Redis, projectId: string): Promise<string[]> {
  return (await CASCADE_PROJECT(redis, [keys.project(projectId)], [templates, projectId])) as string[];
}
