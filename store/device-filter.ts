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

/** The `q` rule: the device's name contains `q`, in any case. */
export function nameMatches(name: string, q: string): boolean {
  return name.toLowerCase().includes(q.toLowerCase());
}

function sameVersion(version: string, wanted: string): boolean {
  const [a, b] = [parseSemVer(version), parseSemVer(wanted)];
  return a && b ? compareSemVer(a, b) === 0 : version === wanted;
}

function versionBelow(version: string, bound: string): boolean {
  const [a, b] = [parseSemVer(version), parseSemVer(bound)];
  return a !== null && b !== null && compareSemVer(a, b) < 0;
}

/** Whether the filter asks anything of the firmware version. */
export const filtersFirmware = (f: DeviceFilter): boolean => f.firmwareVersion !== undefined || f.firmwareVersionLt !== undefined;

/** The `firmwareVersion` and `firmwareVersionLt` rules for a device's mirrored (non-empty) firmware version. */
export function firmwareMatches(version: string, f: DeviceFilter): boolean {
  if (f.firmwareVersion !== undefined && !sameVersion(version, f.firmwareVersion)) return false;
  if (f.firmwareVersionLt !== undefined && !versionBelow(version, f.firmwareVersionLt)) return false;
  return true;
}
