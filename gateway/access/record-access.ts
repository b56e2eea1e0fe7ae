import { AppError, isAppError, type ErrorCode } from '../../common/errors';
import type { Role } from '../../common/roles';
import type { Stores } from '../../store';
import { projectAccess } from './project-access';

/**
 * Access to a record that belongs to a project (widget, rule, notification): the project's rules
 * (DESIGN §3), but someone outside the project gets the record's own 404 code.
 */
export async function projectRecordAccess(
  stores: Stores,
  userId: string,
  projectId: string,
  needed: Role,
  notFound: ErrorCode,
): Promise<{ role: Role }> {
  try {
    const { role } = await projectAccess(stores, userId, projectId, needed);
    return { role };
  } catch (err) {
    if (isAppError(err) && err.code === 'PROJECT_NOT_FOUND') throw new AppError(notFound);
    throw err;
  }
}

/** A record's `deviceId` must name a device of the record's project; a missing one is answered alike. */
export function deviceNotInProject(): AppError {
  return new AppError('VALIDATION_ERROR', 'deviceId is not a device of the project', [
    { field: 'body.deviceId', problem: 'not a device of the project' },
  ]);
}

export async function requireProjectDevice(stores: Stores, projectId: string, deviceId: string): Promise<void> {
  const device = await stores.devices.get(deviceId);
  if (!device || device.projectId !== projectId) throw deviceNotInProject();
}

/** A record's `templateId` must name a template of the record's project; a missing one is answered alike. */
export function templateNotInProject(): AppError {
  return new AppError('VALIDATION_ERROR', 'templateId is not a template of the project', [
    { field: 'body.templateId', problem: 'not a template of the project' },
  ]);
}

export async function requireProjectTemplate(stores: Stores, projectId: string, templateId: string): Promise<void> {
  const template = await stores.templates.get(templateId);
  if (!template || template.projectId !== projectId) throw templateNotInProject();
}
