import { api } from '../../api/client';
import type { Device, DeviceStatus } from '../../api/types';

export interface DeviceFilters {
  /** Part of the name, any case. */
  q: string;
  status: DeviceStatus | '';
  tag: string;
}

export interface DevicePage {
  devices: Device[];
  total: number;
  /** True when the page was filtered in the browser, having read the whole list (see below). */
  searchedHere: boolean;
}

const SCAN_PAGE = 100;

/** Every device of the project with this status, page by page (the API's limit is 100). */
async function everyDevice(projectId: string, status: DeviceStatus | ''): Promise<Device[]> {
  const all: Device[] = [];
  for (let page = 1; ; page++) {
    const list = await api.devices({ projectId, status: status || undefined, page, limit: SCAN_PAGE });
    all.push(...list.devices);
    if (list.devices.length < SCAN_PAGE || all.length >= list.total) return all;
  }
}

const matches = (d: Device, f: DeviceFilters): boolean =>
  (!f.q || d.name.toLowerCase().includes(f.q.toLowerCase())) && (!f.tag || d.tags.some((t) => t.toLowerCase() === f.tag.toLowerCase()));

/**
 * One page of a project's devices. Paging and the status filter are the API's (GET /devices
 * `page`, `limit`, `status`). The API has no name search or tag filter yet (docs/console.md
 * "Device list"), so with either set the list is read whole and filtered here.
 */
export async function devicePage(projectId: string, filters: DeviceFilters, page: number, limit: number): Promise<DevicePage> {
  if (!filters.q && !filters.tag) {
    const list = await api.devices({ projectId, status: filters.status || undefined, page, limit });
    return { devices: list.devices, total: list.total, searchedHere: false };
  }
  const found = (await everyDevice(projectId, filters.status)).filter((d) => matches(d, filters));
  return { devices: found.slice((page - 1) * limit, page * limit), total: found.length, searchedHere: true };
}

/** How many of the project's devices are online and offline (two counts of the status filter). */
export async function statusCounts(projectId: string): Promise<{ online: number; offline: number }> {
  const [online, offline] = await Promise.all([
    api.devices({ projectId, status: 'online', limit: 1 }),
    api.devices({ projectId, status: 'offline', limit: 1 }),
  ]);
  return { online: online.total, offline: offline.total };
}
