import { api } from '../../api/client';
import type { DeviceList, DeviceStatus } from '../../api/types';

export interface DeviceFilters {
  /** Part of the name, any case. */
  q: string;
  status: DeviceStatus | '';
  tag: string;
  /** A template's id; empty: any. */
  templateId: string;
}

/** One page of a project's devices, found by the API's filters (GET /devices `q`, `tag`, `status`, `page`, `limit`). */
export function devicePage(projectId: string, filters: DeviceFilters, page: number, limit: number): Promise<DeviceList> {
  const text = (value: string) => value.trim() || undefined;
  return api.devices({
    projectId,
    q: text(filters.q),
    tag: text(filters.tag),
    templateId: filters.templateId || undefined,
    status: filters.status || undefined,
    page,
    limit,
  });
}

/** How many of the project's devices are online and offline (two counts of the status filter). */
export async function statusCounts(projectId: string): Promise<{ online: number; offline: number }> {
  const [online, offline] = await Promise.all([
    api.devices({ projectId, status: 'online', limit: 1 }),
    api.devices({ projectId, status: 'offline', limit: 1 }),
  ]);
  return { online: online.total, offline: offline.total };
}
