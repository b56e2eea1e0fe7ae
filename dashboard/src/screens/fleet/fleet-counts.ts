import { api } from '../../api/client';
import type { DeviceQuery } from '../../api/types';

/** Devices read to learn which firmware versions the matching devices run. */
const SAMPLE = 100;
/** Versions counted exactly when more devices match than the sample holds. */
const COUNTED_VERSIONS = 8;

export interface FleetCounts {
  online: number;
  offline: number;
  /** The versions the matching devices run, most devices first. */
  firmware: Array<{ version: string; count: number }>;
  /** Devices not in `firmware`: no version reported, or (when `exact` is false) a version not counted. */
  rest: number;
  /** Whether every matching device was looked at (else the versions are those of the first SAMPLE, each counted exactly). */
  exact: boolean;
}

/**
 * Counts by status and by firmware version of the devices a query matches. The API has no facet
 * endpoint, so: online and offline are the `total` of two status-filtered reads (`limit=1`); the
 * versions are tallied from the first SAMPLE matching devices, which is every one in a small
 * fleet; beyond that, the COUNTED_VERSIONS most common there are each counted exactly
 * (`firmwareVersion=`, `limit=1`) and the rest is one number.
 */
export async function fleetCounts(query: DeviceQuery): Promise<FleetCounts> {
  const all = { ...query, status: undefined, page: undefined };
  const [online, offline, sample] = await Promise.all([
    api.devices({ ...all, status: 'online', limit: 1 }),
    api.devices({ ...all, status: 'offline', limit: 1 }),
    api.devices({ ...query, page: 1, limit: SAMPLE }),
  ]);
  const tally = new Map<string, number>();
  for (const d of sample.devices) if (d.firmwareVersion) tally.set(d.firmwareVersion, (tally.get(d.firmwareVersion) ?? 0) + 1);
  const common = [...tally].sort((a, b) => b[1] - a[1]);
  const exact = sample.total <= sample.devices.length;
  const firmware = exact
    ? common.map(([version, count]) => ({ version, count }))
    : await Promise.all(
        common
          .slice(0, COUNTED_VERSIONS)
          .map(async ([version]) => ({ version, count: (await api.devices({ ...query, firmwareVersion: version, limit: 1 })).total })),
      );
  const counted = firmware.reduce((sum, f) => sum + f.count, 0);
  return { online: online.total, offline: offline.total, firmware, rest: Math.max(0, sample.total - counted), exact };
}
