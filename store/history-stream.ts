import { DependencyUnavailableError } from '../common/errors';
import type { Redis } from '../common/redis';
import type { StreamPoint } from './pg/persist-points';

/**
 * The history stream (keys.historyStream): ingest appends every accepted point to it in the same
 * atomic step as the latest value (store-point-9.lua); every node's persister drains it into
 * PostgreSQL and deletes what it persisted, so what the stream holds is exactly the backlog.
 */
export const HISTORY_GROUP = 'persister';

export type StreamEntry = [id: string, fields: string[] | null];

/** The point an entry carries (one field `p`: `{ms} {deviceId} {pin} {value}`), or null for one this code cannot read. */
export function parseEntry([entryId, fields]: StreamEntry): StreamPoint | null {
  const text = fields?.[0] === 'p' ? fields[1] : undefined;
  if (text === undefined) return null;
  const first = text.indexOf(' ');
  const second = text.indexOf(' ', first + 1);
  const third = text.indexOf(' ', second + 1);
  if (first < 1 || second < 0 || third < 0) return null;
  const ms = Number(text.slice(0, first));
  if (!Number.isFinite(ms)) return null;
  return { entryId, ms, deviceId: text.slice(first + 1, second), pin: text.slice(second + 1, third), value: text.slice(third + 1) };
}

/** An entry id as comparable numbers. */
function idParts(id: string): [number, number] {
  const [ms, n] = id.split('-');
  return [Number(ms), Number(n)];
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
  const oldest = async (): Promise<string | null> => ((await redis.xrange(stream, '-', '+', 'COUNT', 1))[0]?.[0] ?? null);
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

/** Age (s) of the oldest point not yet persisted, and how many there are. */
export async function streamLag(redis: Redis, stream: string): Promise<{ backlog: number; lagSeconds: number }> {
  const [length, first] = await Promise.all([redis.xlen(stream), redis.xrange(stream, '-', '+', 'COUNT', 1)]);
  const id = first[0]?.[0];
  return { backlog: length, lagSeconds: id ? Math.max(0, (Date.now() - idParts(id)[0]) / 1000) : 0 };
}
