import type { Redis } from '../common/redis';
import { fleetIndexes, keys } from '../common/redis-keys';
import { type DeviceFilter, filtersFirmware, firmwareMatches, nameMatches } from './device-filter';
import { luaScript } from './lua/load';

/**
 * The fleet index (store/lua/lib/fleet-index.lua writes it, in the same step as each change of a
 * field it holds): per shard, one sorted set of `projectId \0 kind \0 value \0 deviceId` entries.
 * Here: a create's record written with its entries, and the devices of one project a filter's
 * indexed fields find, read as ranges (one ZRANGEBYLEX per shard and value), never device by device.
 */
const WRITE_DEVICE = luaScript('write-device-3');
const DROP_DEVICE = luaScript('drop-device-3');

/** Writes a new device's hash with its fleet index entries (write-device-3.lua). */
export async function writeDeviceRecord(redis: Redis, deviceId: string, fields: Record<string, string>): Promise<void> {
  await WRITE_DEVICE(
    redis,
    [keys.device(deviceId), keys.deviceState(deviceId), keys.fleetIndex(deviceId)],
    [deviceId, ...Object.entries(fields).flat()],
  );
}

/** Adds whatever fleet index entries a stored device lacks (devices made before the index; idempotent). */
export async function reindexDevice(redis: Redis, deviceId: string): Promise<void> {
  await writeDeviceRecord(redis, deviceId, {});
}

/** Removes a device hash a create wrote, with its fleet index entries (drop-device-3.lua). */
export async function dropDeviceRecord(redis: Redis, deviceId: string): Promise<void> {
  await DROP_DEVICE(redis, [keys.device(deviceId), keys.deviceState(deviceId), keys.fleetIndex(deviceId)], [deviceId]);
}

const SEP = '\u0000';
/** Above every entry that starts with a prefix ending in SEP: the prefix with SEP raised by one. */
const above = (prefix: string): string => `(${prefix.slice(0, -1)}\u0001`;

/** The ids of one project's entries of `kind` whose value is exactly `value`, in every shard. */
async function withValue(redis: Redis, projectId: string, kind: string, value: string): Promise<Set<string>> {
  const prefix = `${projectId}${SEP}${kind}${SEP}${value}${SEP}`;
  const found = await Promise.all(fleetIndexes().map((key) => redis.zrangebylex(key, `[${prefix}`, above(prefix))));
  const ids = new Set<string>();
  // A value with SEP in it shares the prefix of a shorter one: an id never holds SEP.
  for (const member of found.flat()) if (!member.includes(SEP, prefix.length)) ids.add(member.slice(prefix.length));
  return ids;
}

/** One project's entries of `kind` between `min` and `max` (ZRANGEBYLEX bounds) as [value, id], in every shard. */
async function entries(redis: Redis, projectId: string, kind: string, min?: string): Promise<[string, string][]> {
  const prefix = `${projectId}${SEP}${kind}${SEP}`;
  const found = await Promise.all(fleetIndexes().map((key) => redis.zrangebylex(key, min ?? `[${prefix}`, above(prefix))));
  return found.flat().map((member) => {
    const cut = member.lastIndexOf(SEP);
    return [member.slice(prefix.length, cut), member.slice(cut + 1)];
  });
}

/** The firmware versions a project's devices were seen on, per shard key (markers; some may have no device now). */
async function firmwareVersions(redis: Redis, projectId: string): Promise<Set<string>> {
  const prefix = `${projectId}${SEP}V${SEP}`;
  const found = await Promise.all(fleetIndexes().map((key) => redis.zrangebylex(key, `[${prefix}`, above(prefix))));
  return new Set(found.flat().map((member) => member.slice(prefix.length)));
}

/** What a filter asks of a project's devices through the index: sets every match is in, and sets no match is in. */
export interface IndexedMatch {
  within: Set<string>[];
  without: Set<string>[];
}

/**
 * The index's answer to `filter` for one project (DESIGN §13's rules, store/device-filter.ts): the
 * fields of the record (name, tags, template, serial) and of the mirror (status, firmware, last
 * seen). `q` reads the project's names (a substring has no range) and keeps those nameMatches takes.
 */
export async function indexedMatch(redis: Redis, projectId: string, f: DeviceFilter): Promise<IndexedMatch> {
  const within: Promise<Set<string>>[] = [];
  const without: Promise<Set<string>>[] = [];
  if (f.tag !== undefined) within.push(withValue(redis, projectId, 't', f.tag));
  if (f.templateId !== undefined) within.push(withValue(redis, projectId, 'm', f.templateId));
  if (f.serial !== undefined) within.push(withValue(redis, projectId, 's', f.serial));
  if (f.status !== undefined) (f.status === 'online' ? within : without).push(withValue(redis, projectId, 'o', 'online'));
  const q = f.q;
  if (q !== undefined) {
    within.push(
      entries(redis, projectId, 'n').then((names) => new Set(names.filter(([name]) => nameMatches(name, q)).map(([, id]) => id))),
    );
  }
  if (filtersFirmware(f)) {
    within.push(
      firmwareVersions(redis, projectId).then(async (versions) => {
        const matching = [...versions].filter((v) => firmwareMatches(v, f));
        const sets = await Promise.all(matching.map((v) => withValue(redis, projectId, 'f', v)));
        return new Set(sets.flatMap((s) => [...s]));
      }),
    );
  }
  // lastSeen entries are ISO 8601 UTC of one format (toISOString), which compare like the times they stand for.
  const seenFrom = (ms: number, after: boolean) => `[${projectId}${SEP}l${SEP}${new Date(ms).toISOString()}${after ? '\u0001' : ''}`;
  const ids = (found: [string, string][]) => new Set(found.map(([, id]) => id));
  if (f.lastSeenAfter !== undefined) within.push(entries(redis, projectId, 'l', seenFrom(f.lastSeenAfter, true)).then(ids));
  // Never heard from counts as before: every device but those seen at or after the time.
  if (f.lastSeenBefore !== undefined) without.push(entries(redis, projectId, 'l', seenFrom(f.lastSeenBefore, false)).then(ids));
  return { within: await Promise.all(within), without: await Promise.all(without) };
}
