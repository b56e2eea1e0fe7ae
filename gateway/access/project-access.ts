import { z } from 'zod';
import { AppError } from '../../common/errors';
import { roleAtLeast, type Role } from '../../common/roles';
import type { DeviceWithState } from '../../store/devices';
import type { Stores } from '../../store';
import type { Project } from '../../store/projects';

const uuid = z.uuid();

/**
 * Authorization for project resources (DESIGN §3): someone outside the project gets 404 (no
 * existence leak); a member whose role is too weak gets 403.
 */
export async function projectAccess(
  stores: Stores,
  userId: string,
  projectId: string,
  needed: Role,
): Promise<{ project: Project; role: Role }> {
  if (!uuid.safeParse(projectId).success) throw new AppError('PROJECT_NOT_FOUND');
  const [role, project] = await Promise.all([stores.projects.roleOf(projectId, userId), stores.projects.get(projectId)]);
  if (!role || !project) throw new AppError('PROJECT_NOT_FOUND');
  if (!roleAtLeast(role, needed)) throw new AppError('FORBIDDEN', `This needs the ${needed} role or higher`);
  return { project, role };
}

export async function deviceAccess(
  stores: Stores,
  userId: string,
  deviceId: string,
  needed: Role,
): Promise<{ device: DeviceWithState; role: Role }> {
  if (!uuid.safeParse(deviceId).success) throw new AppError('DEVICE_NOT_FOUND');
  const device = await stores.devices.get(deviceId);
  if (!device) throw new AppError('DEVICE_NOT_FOUND');
  const role = await stores.projects.roleOf(device.projectId, userId);
  if (!role) throw new AppError('DEVICE_NOT_FOUND');
  if (!roleAtLeast(role, needed)) throw new AppError('FORBIDDEN', `This needs the ${needed} role or higher`);
  return { device, role };
}

/** The projects a listing covers: the caller's, or the one asked for (404 for a project they are not in). */
export async function projectScope(stores: Stores, userId: string, projectId: string | undefined): Promise<string[]> {
  if (projectId) return [(await projectAccess(stores, userId, projectId, 'viewer')).project.id];
  return stores.projects.projectIdsOf(userId);
}
