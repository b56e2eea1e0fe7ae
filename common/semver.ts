/**
 * Semantic versions (semver.org 2.0.0) as firmware reports them (`1.4.2`, `v1.4.2`,
 * `2.0.0-rc.1+build.5`): parsed and ordered for the device list's firmware filters (DESIGN §13).
 * A version that does not parse is not ordered: it matches no "below" filter.
 */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  /** Pre-release identifiers, each a number or a string; empty for a release. */
  pre: (number | string)[];
}

const PATTERN =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

/** The version `text` names, or null when it is not a semantic version. */
export function parseSemVer(text: string): SemVer | null {
  const m = PATTERN.exec(text.trim());
  if (!m) return null;
  const pre = m[4] ? m[4].split('.').map((id) => (/^\d+$/.test(id) ? Number(id) : id)) : [];
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre };
}

function comparePre(a: (number | string)[], b: (number | string)[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length; // a release is above its pre-releases
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] as number | string;
    const y = b[i] as number | string;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1; // numeric identifiers are below alphanumeric ones
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Semver precedence: negative when `a` is below `b`, 0 when equal (build metadata ignored), positive above. */
export function compareSemVer(a: SemVer, b: SemVer): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePre(a.pre, b.pre);
}
