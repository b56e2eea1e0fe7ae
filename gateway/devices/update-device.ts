import { AppError } from '../../common/errors';
import { heartbeatTimeoutOf } from '../../common/liveness';
import { ruleCovers, type RuleSubject, watchedByTwin } from '../../common/rule-scope';
import type { Stores } from '../../store';
import type { DevicePatch, DeviceWithState } from '../../store/devices';
import { templateNotInProject } from '../access/record-access';
import type { CarryOutNow } from '../outbox/carry-out-now';

type Deps = { stores: Stores; carryOutNow: CarryOutNow };

/** The heartbeat a device sets (own, else its template's), 0 for none. */
async function heartbeatSet(stores: Stores, own: number | null, templateId: string | null): Promise<number> {
  if (own !== null) return own;
  return templateId === null ? 0 : heartbeatTimeoutOf((await stores.templates.get(templateId))?.heartbeatTimeoutS, 0);
}

/**
 * Whether the patch changes what the device's twin watches by: its heartbeat, or which of its
 * project's scoped no_data / offline / online rules cover it. Only then is the twin told, so a
 * renamed or re-tagged device in a project without such rules costs Temporal nothing.
 */
async function twinWatchChanges({ stores }: Deps, device: DeviceWithState, patch: DevicePatch): Promise<boolean> {
  const after = { templateId: patch.templateId !== undefined ? patch.templateId : device.templateId, tags: patch.tags ?? device.tags };
  const own = patch.heartbeatTimeoutS !== undefined ? patch.heartbeatTimeoutS : device.heartbeatTimeoutS;
  if ((await heartbeatSet(stores, device.heartbeatTimeoutS, device.templateId)) !== (await heartbeatSet(stores, own, after.templateId))) {
    return true;
  }
  if (after.templateId === device.templateId && JSON.stringify(after.tags) === JSON.stringify(device.tags)) return false;
  const before: RuleSubject = { deviceId: device.id, templateId: device.templateId, tags: device.tags };
  const next: RuleSubject = { deviceId: device.id, ...after };
  const scoped = await stores.rules.scoped(device.projectId);
  return scoped.some((rule) => watchedByTwin(rule) && ruleCovers(rule, before) !== ruleCovers(rule, next));
}

/**
 * A device's PATCH (SPEC §4.2, DESIGN §12). A new template takes the device among its devices
 * first (refused, 400, when the template is gone or of another project); the device is written,
 * with its twin's rules-changed intent in the same step when what the twin watches by changed
 * (every gateway node's threshold cache hears of a new template or tags); then the old template
 * lets it go. The twin is told before the answer (the relay tells it when Temporal is down).
 */
export async function updateDevice(deps: Deps, device: DeviceWithState, patch: DevicePatch): Promise<DeviceWithState> {
  const { stores, carryOutNow } = deps;
  const templateChanges = patch.templateId !== undefined && patch.templateId !== device.templateId;
  if (templateChanges && patch.templateId) {
    const template = await stores.templates.get(patch.templateId);
    if (!template || template.projectId !== device.projectId || !(await stores.templates.claim(template.id, device.id))) {
      throw templateNotInProject();
    }
  }
  const tellTwin = await twinWatchChanges(deps, device, patch);
  const intent = tellTwin ? { type: 'rules-changed' as const, payload: { projectId: device.projectId, deviceIds: [device.id] } } : null;
  const written = await stores.devices.update(device.id, patch, intent);
  if (written === 'gone') {
    if (templateChanges && patch.templateId) await stores.templates.release(patch.templateId, device.id);
    throw new AppError('DEVICE_NOT_FOUND');
  }
  if (templateChanges && device.templateId) await stores.templates.release(device.templateId, device.id);
  await carryOutNow(written);
  const changed = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  return { ...device, ...changed };
}
