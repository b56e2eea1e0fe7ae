import { api } from '../../api/client';
import type { JobTarget, Project } from '../../api/types';
import { deviceQuery, type FleetFilters, jobFilter } from './fleet-filters';

/** What the fleet screen runs a job on: the devices ticked (id → project), or every device matching the filters. */
export type FleetSelection = { kind: 'devices'; devices: ReadonlyMap<string, string> } | { kind: 'matching' };

/** One job to make: a job belongs to one project. */
export interface ProjectTarget {
  projectId: string;
  target: JobTarget;
}

/**
 * The jobs a selection makes, one per project: ticked devices by their project (`deviceIds`);
 * "all matching" as the filters themselves (`filter`, fixed by the job when it starts), in the
 * chosen project or in each project the user may run jobs in that has a matching device.
 */
export async function jobTargets(selection: FleetSelection, filters: FleetFilters, projects: readonly Project[]): Promise<ProjectTarget[]> {
  if (selection.kind === 'devices') {
    const byProject = new Map<string, string[]>();
    for (const [deviceId, projectId] of selection.devices) byProject.set(projectId, [...(byProject.get(projectId) ?? []), deviceId]);
    return [...byProject].map(([projectId, deviceIds]) => ({ projectId, target: { deviceIds } }));
  }
  const target = { filter: jobFilter(filters) };
  if (filters.projectId) return [{ projectId: filters.projectId, target }];
  const editable = projects.filter((p) => p.role !== 'viewer').map((p) => p.id);
  const matching = await Promise.all(
    editable.map(async (projectId) => ((await api.devices({ ...deviceQuery(filters), projectId, limit: 1 })).total > 0 ? projectId : null)),
  );
  return matching.filter((id): id is string => id !== null).map((projectId) => ({ projectId, target }));
}

/** The one project a selection lies in, or null when it may span several (an OTA job needs one: its image is a project's). */
export function singleProject(selection: FleetSelection, filters: FleetFilters): string | null {
  if (filters.projectId) return filters.projectId;
  if (selection.kind === 'matching') return null;
  const projects = new Set(selection.devices.values());
  return projects.size === 1 ? ([...projects][0] ?? null) : null;
}
