import type { DeviceStatus } from '../common/contracts';
import { compareSemVer, parseSemVer } from '../common/semver';

/** The device list's filters (DESIGN §13): on the device's record, and on what its mirror says. */
export interface DeviceFilter {
  status?: DeviceStatus;
  q?: string;
  tag?: string;
  templateId?: string;
  /** Provisioned with this serial (DESIGN §14), exactly. */
  serial?: string;
  /** Semantically equal to this version (else, when either does not parse, the same text). */
  firmwareVersion?: string;
  /** A semantic version below this one (a version that does not parse is below nothing). */
  firmwareVersionLt?: string;
  /** Last heard from before this time (epoch ms); never heard from counts as before. */
  lastSeenBefore?: number;
  /** Last heard from after this time (epoch ms). */
  lastSeenAfter?: number;
}

/** Whether the filter asks anything of the device's record (name, tags, template, serial). */
export const filtersRecord = (f: DeviceFilter): boolean =>
  f.q !== undefined || f.tag !== undefined || f.templateId !== undefined || f.serial !== undefined;

/** Whether a device's `name`, `tags`, `templateId` and `serial` fields (as stored, in that order) match the filter. */
export function matchesRecord([name, tagsJson, templateId, serial]: (string | null)[], f: DeviceFilter): boolean {
  if (f.q !== undefined && !(name ?? '').toLowerCase().includes(f.q.toLowerCase())) return false;
  if (f.tag !== undefined && !(tagsJson ? (JSON.parse(tagsJson) as string[]) : []).includes(f.tag)) return false;
  if (f.templateId !== undefined && templateId !== f.templateId) return false;
  if (f.serial !== undefined && serial !== f.serial) return false;
  return true;
}

/** Whether the filter asks anything of the device's mirror (status, firmware, last seen). */
export const filtersState = (f: DeviceFilter): boolean =>
  f.status !== undefined ||
  f.firmwareVersion !== undefined ||
  f.firmwareVersionLt !== undefined ||
  f.lastSeenBefore !== undefined ||
  f.lastSeenAfter !== undefined;

function sameVersion(version: string, wanted: string): boolean {
  const [a, b] = [parseSemVer(version), parseSemVer(wanted)];
  return a && b ? compareSemVer(a, b) === 0 : version === wanted;
}

function versionBelow(version: string, bound: string): boolean {
  const [a, b] = [parseSemVer(version), parseSemVer(bound)];
  return a !== null && b !== null && compareSemVer(a, b) < 0;
}

/** Whether a device's mirrored `status`, `firmwareVersion` and `lastSeen` (in that order) match the filter. */
export function matchesState([status, firmware, lastSeen]: (string | null)[], f: DeviceFilter): boolean {
  if (f.status !== undefined && (status ?? 'offline') !== f.status) return false;
  if (f.firmwareVersion !== undefined && !(firmware && sameVersion(firmware, f.firmwareVersion))) return false;
  if (f.firmwareVersionLt !== undefined && !(firmware && versionBelow(firmware, f.firmwareVersionLt))) return false;
  const seen = lastSeen ? Date.parse(lastSeen) : null;
  if (f.lastSeenBefore !== undefined && seen !== null && seen >= f.lastSeenBefore) return false;
  if (f.lastSeenAfter !== undefined && (seen === null || seen <= f.lastSeenAfter)) return false;
  return true;
}
