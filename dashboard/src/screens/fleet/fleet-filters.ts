import type { DeviceQuery, DeviceStatus, JobFilter } from '../../api/types';

/** The fleet screen's filters as typed (DESIGN §13); empty fields filter nothing. */
export interface FleetFilters {
  /** One project; empty: every project of the user. */
  projectId: string;
  q: string;
  status: DeviceStatus | '';
  tag: string;
  /** A template of the chosen project (templates belong to one). */
  templateId: string;
  /** Firmware semantically equal to this version. */
  firmwareVersion: string;
  /** Firmware below this version. */
  firmwareVersionLt: string;
  /** `datetime-local` values, in the browser's time zone. */
  lastSeenAfter: string;
  lastSeenBefore: string;
}

export const NO_FLEET_FILTERS: FleetFilters = {
  projectId: '',
  q: '',
  status: '',
  tag: '',
  templateId: '',
  firmwareVersion: '',
  firmwareVersionLt: '',
  lastSeenAfter: '',
  lastSeenBefore: '',
};

const text = (value: string): string | undefined => value.trim() || undefined;

/** A `datetime-local` value as ISO 8601 (what the API takes), or nothing when empty or not a time. */
function instant(local: string): string | undefined {
  const ms = local ? Date.parse(local) : Number.NaN;
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The filters as a job's `target.filter` (the device list's filter fields, without the project): only those set. */
export function jobFilter(f: FleetFilters): JobFilter {
  const filter: JobFilter = {};
  if (f.status) filter.status = f.status;
  const set = (key: Exclude<keyof JobFilter, 'status'>, value: string | undefined) => {
    if (value) filter[key] = value;
  };
  set('q', text(f.q));
  set('tag', text(f.tag));
  if (f.projectId) set('templateId', f.templateId);
  set('firmwareVersion', text(f.firmwareVersion));
  set('firmwareVersionLt', text(f.firmwareVersionLt));
  set('lastSeenAfter', instant(f.lastSeenAfter));
  set('lastSeenBefore', instant(f.lastSeenBefore));
  return filter;
}

/** The filters as a `GET /devices` query. */
export const deviceQuery = (f: FleetFilters): DeviceQuery => ({ projectId: f.projectId || undefined, ...jobFilter(f) });

/** Whether any filter but the project is set. */
export const filtering = (f: FleetFilters): boolean => Object.keys(jobFilter(f)).length > 0;
