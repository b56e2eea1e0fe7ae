import { DependencyUnavailableError } from '../common/errors';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';
import type { StreamPoint } from './pg/persist-points';

/**
 * The history stream (keys.historyStream): ingest appends every accepted point to it in the same
 * atomic step as the latest value (store-point-13.lua, import-points-4.lua); every node's persister
 * drains it into PostgreSQL and deletes what it persisted, so what the stream holds is exactly the
 * backlog.
 *
 * Two kinds of entry (docs/architecture.md, "History"):
 * - `p`: one point, `{ms} {deviceId} {pin} {value}` (store-point-13.lua);
 * - `b`: a bulk import's readings of one device, JSON `[deviceId, ms, pin, value, ms, pin, value, ...]`,
 *   and `n`: how many (import-points-4.lua). Entry `ms-n` with k readings stands for the ids `ms-n` … `ms-(n+k-1)`:
 *   the script moves the stream's last id past them (XSETID), so reading i has the id `ms-(n+i)`
 *   no other entry ever gets, and a point's identity is its id whichever kind carried it.
 *   Its k − 1 readings beyond the entry itself are counted in the stream's extra-points counter
 *   (keys.historyExtra), so the backlog in points is XLEN + that counter.
 */
export const HISTORY_GROUP = 'persister';

const ACKNOWLEDGE = luaScript('history-ack-2');

export type StreamEntry = [id: string, fields: string[] | null];

/** How many points an entry holds beyond one (what it adds to the extra-points counter). */
export function extraPoints([, fields]: StreamEntry): number {
  if (fields?.[0] !== 'b' || fields[2] !== 'n') return 0;
  const count = Number(fields[3]);
  return Number.isInteger(count) && count > 1 ? count - 1 : 0;
}

/** An entry id as comparable numbers. */
function idParts(id: string): [number, number] {
  const [ms, n] = id.split('-');
  return [Number(ms), Number(n)];
}

function onePoint(entryId: string, text: string): StreamPoint[] | null {
  const first = text.indexOf(' ');
  const second = text.indexOf(' ', first + 1);
  const third = text.indexOf(' ', second + 1);
  if (first < 1 || second < 0 || third < 0) return null;
  const ms = Number(text.slice(0, first));
  if (!Number.isFinite(ms)) return null;
  return [{ entryId, ms, deviceId: text.slice(first + 1, second), pin: text.slice(second + 1, third), value: text.slice(third + 1) }];
}

function bulkPoints(entryId: string, text: string): StreamPoint[] | null {
  let flat: unknown;
  try {
    flat = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(flat) || typeof flat[0] !== 'string' || flat.length % 3 !== 1) return null;
  const deviceId = flat[0];
  const [idMs, idN] = idParts(entryId);
  const points: StreamPoint[] = [];
  for (let i = 1; i < flat.length; i += 3) {
    const ms: unknown = flat[i];
    const pin: unknown = flat[i + 1];
    const value: unknown = flat[i + 2];
    if (typeof ms !== 'number' || typeof pin !== 'string' || typeof value !== 'string') return null;
    points.push({ entryId: `${idMs}-${idN + (i - 1) / 3}`, ms, deviceId, pin, value });
  }
  return points;
}

/** The points an entry carries, or null for one this code cannot read (or one deleted after it was read). */
export function parseEntry([entryId, fields]: StreamEntry): StreamPoint[] | null {
  const text = fields?.[1];
  if (text === undefined) return null;
  if (fields?.[0] === 'p') return onePoint(entryId, text);
  if (fields?.[0] === 'b') return bulkPoints(entryId, text);
  return null;
}

function after(a: string, b: string): boolean {
  const [am, an] = idParts(a);
  const [bm, bn] = idParts(b);
  return am > bm || (am === bm && an > bn);
}

const POLL_MS = 5;

/**
 * Read-after-write: resolves once every point appended to the stream before this call is in
 * PostgreSQL (the oldest entry left is newer than the newest one now). One XRANGE when the stream
 * is drained, as it is unless the persisters are behind; throws DependencyUnavailableError
 * ('postgres') when the persisters do not get there within `timeoutMs` (PostgreSQL down or slow).
 */
export async function waitPersisted(redis: Redis, stream: string, timeoutMs: number): Promise<void> {
  const oldest = async (): Promise<string | null> => (await redis.xrange(stream, '-', '+', 'COUNT', 1))[0]?.[0] ?? null;
  if ((await oldest()) === null) return;
  const newest = (await redis.xrevrange(stream, '+', '-', 'COUNT', 1))[0]?.[0];
  if (newest === undefined) return;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const first = await oldest();
    if (first === null || after(first, newest)) return;
    if (Date.now() >= deadline) throw new DependencyUnavailableError('postgres');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Age (s) of the oldest point not yet persisted, and how many points there are. */
export async function streamLag(redis: Redis, stream: string): Promise<{ backlog: number; lagSeconds: number }> {
  const [length, extra, first] = await Promise.all([
    redis.xlen(stream),
    redis.get(keys.historyExtra(stream)),
    redis.xrange(stream, '-', '+', 'COUNT', 1),
  ]);
  const id = first[0]?.[0];
  return { backlog: length + Number(extra ?? 0), lagSeconds: id ? Math.max(0, (Date.now() - idParts(id)[0]) / 1000) : 0 };
}

/**
 * Takes persisted entries off the stream (history-ack-2.lua): acknowledged for the group, deleted,
 * and each bulk entry's extra points off the backlog counter, once however often it is called.
 * `acks` pairs each entry id with the points it carries beyond one (`extraPoints`). Returns how
 * many entries this call deleted.
 */
export async function acknowledgePersisted(redis: Redis, stream: string, acks: readonly (string | number)[]): Promise<number> {
  return Number(await ACKNOWLEDGE(redis, [stream, keys.historyExtra(stream)], [HISTORY_GROUP, ...acks]));
}
