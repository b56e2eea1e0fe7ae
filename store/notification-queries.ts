import type { NotificationRecord } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';
import { createNotificationStore, parseStored, type StoredNotification } from './notifications';

export interface NotificationFilter {
  deviceId?: string;
  type?: NotificationRecord['type'];
  /** True: only those the caller has not read. */
  unread?: boolean;
}

export interface NotificationPage {
  notifications: NotificationRecord[];
  /** How many match the filter. */
  total: number;
  /** How many the caller has not read match the filter without its `unread` part. */
  unread: number;
}

interface Entry {
  id: string;
  score: number;
  projectId: string;
}

/** The project step of a delete: index and unread entries (the record goes after it). */
const UNINDEX = luaScript('unindex-notification-n');

/** Records read per round trip when a filter needs their content. */
const CHUNK = 500;

function entries(projectId: string, flat: string[]): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ id: flat[i] as string, score: Number(flat[i + 1]), projectId });
  return out;
}

/** Newest first; equal times in reverse id order, as ZREVRANGE orders them. */
function newestFirst(a: Entry, b: Entry): number {
  return b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * Reads, marks and deletes the notification records that store/notifications.ts creates: ids come
 * newest first from the per-project sorted sets, records in one MGET per page. Read state is each
 * member's own: a per-project, per-member sorted set of the ids that member has not read
 * (`keys.projectMemberUnreadNotifications`), filled for every member when a notification is
 * created and for a new member from all of the project's when they join.
 */
export function createNotificationQueries(redis: Redis) {
  const records = createNotificationStore(redis);
  const unreadKey = keys.projectMemberUnreadNotifications;

  /** The records of a page (gone ones left out) with `read` as `userId` sees it; one round trip. */
  async function load(userId: string, page: Entry[], unreadOnly: boolean): Promise<NotificationRecord[]> {
    if (page.length === 0) return [];
    const [docs, unread] = await Promise.all([
      Promise.all(page.map((e) => redis.get(keys.notification(e.id)))),
      unreadOnly ? null : Promise.all(page.map((e) => redis.zscore(unreadKey(e.projectId, userId), e.id))),
    ]);
    return docs.flatMap((json, i) => (json === null ? [] : [{ ...parseStored(json), read: unread !== null && unread[i] === null }]));
  }

  async function sum(counts: Promise<number>[]): Promise<number> {
    return (await Promise.all(counts)).reduce((a, b) => a + b, 0);
  }

  /** Without device or type filters: counts from ZCARD, the page from ZREVRANGE of each project. */
  async function listBySets(userId: string, projectIds: string[], unreadOnly: boolean, offset: number, limit: number): Promise<NotificationPage> {
    const source = (p: string) => (unreadOnly ? unreadKey(p, userId) : keys.projectNotifications(p));
    const [total, unread, heads] = await Promise.all([
      sum(projectIds.map((p) => redis.zcard(source(p)))),
      sum(projectIds.map((p) => redis.zcard(unreadKey(p, userId)))),
      Promise.all(projectIds.map(async (p) => entries(p, await redis.zrevrange(source(p), projectIds.length === 1 ? offset : 0, offset + limit - 1, 'WITHSCORES')))),
    ]);
    const page = projectIds.length === 1 ? (heads[0] ?? []) : heads.flat().sort(newestFirst).slice(offset, offset + limit);
    return { notifications: await load(userId, page, unreadOnly), total, unread };
  }

  /** With device or type filters: every record of the projects is read, CHUNK per MGET. */
  async function listByScan(userId: string, projectIds: string[], filter: NotificationFilter, offset: number, limit: number): Promise<NotificationPage> {
    const [all, unreadIds] = await Promise.all([
      Promise.all(projectIds.map(async (p) => entries(p, await redis.zrevrange(keys.projectNotifications(p), 0, -1, 'WITHSCORES')))),
      Promise.all(projectIds.map((p) => redis.zrange(unreadKey(p, userId), '0', '-1'))),
    ]);
    const unreadSet = new Set(unreadIds.flat());
    const sorted = all.flat().sort(newestFirst);
    const page: NotificationRecord[] = [];
    let total = 0;
    let unread = 0;
    for (let i = 0; i < sorted.length; i += CHUNK) {
      const chunk = sorted.slice(i, i + CHUNK);
      const docs = await Promise.all(chunk.map((e) => redis.get(keys.notification(e.id))));
      for (const json of docs) {
        if (json === null) continue;
        const stored = parseStored(json);
        if (filter.deviceId !== undefined && stored.deviceId !== filter.deviceId) continue;
        if (filter.type !== undefined && stored.type !== filter.type) continue;
        const isUnread = unreadSet.has(stored.id);
        if (isUnread) unread++;
        if (filter.unread && !isUnread) continue;
        if (total >= offset && total < offset + limit) page.push({ ...stored, read: !isUnread });
        total++;
      }
    }
    return { notifications: page, total, unread };
  }

  return {
    get: records.get,

    /** The record with `read` as `userId` sees it. */
    async readBy(record: StoredNotification, userId: string): Promise<NotificationRecord> {
      const unread = await redis.zscore(unreadKey(record.projectId, userId), record.id);
      return { ...record, read: unread === null };
    },

    /** The caller's notifications of the given projects, newest first, filtered and paged (page from 1). */
    list(userId: string, projectIds: string[], filter: NotificationFilter, page: number, limit: number): Promise<NotificationPage> {
      const offset = (page - 1) * limit;
      if (filter.deviceId === undefined && filter.type === undefined) {
        return listBySets(userId, projectIds, filter.unread === true, offset, limit);
      }
      return listByScan(userId, projectIds, filter, offset, limit);
    },

    /** Marks one record read for `userId` only; returns it as they see it now, or null when it is gone. */
    async markRead(record: StoredNotification, userId: string): Promise<NotificationRecord | null> {
      await redis.zrem(unreadKey(record.projectId, userId), record.id);
      return (await redis.exists(keys.notification(record.id))) === 1 ? { ...record, read: true } : null;
    },

    /** Marks every notification of the projects read for `userId` only, one atomic step per project (its slot); returns how many were unread. */
    async markAllRead(userId: string, projectIds: string[]): Promise<number> {
      const counts = await Promise.all(
        projectIds.map(async (p) => Number((await redis.multi().zcard(unreadKey(p, userId)).del(unreadKey(p, userId)).exec())?.[0]?.[1] ?? 0)),
      );
      return counts.reduce((a, b) => a + b, 0);
    },

    async delete(record: StoredNotification): Promise<boolean> {
      // The project's index first, the record last (docs/architecture.md "Redis Cluster").
      await UNINDEX(redis, [keys.projectNotifications(record.projectId), keys.projectMembers(record.projectId)], [record.id, unreadKey(record.projectId, '{user}')]);
      return (await redis.del(keys.notification(record.id))) === 1;
    },
  };
}

export type NotificationQueries = ReturnType<typeof createNotificationQueries>;
