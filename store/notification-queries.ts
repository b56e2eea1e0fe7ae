import type { NotificationRecord } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';
import { createNotificationStore } from './notifications';

export interface NotificationFilter {
  deviceId?: string;
  type?: NotificationRecord['type'];
  /** True: only unread ones. */
  unread?: boolean;
}

export interface NotificationPage {
  notifications: NotificationRecord[];
  /** How many match the filter. */
  total: number;
  /** How many unread ones match the filter without its `unread` part. */
  unread: number;
}

interface Entry {
  id: string;
  score: number;
}

/** Marks records read, only those still in the unread set; returns how many changed. */
const MARK_READ = luaScript('mark-notifications-read-n');

const DELETE = luaScript('delete-notification-3');

/** Records read per round trip when a filter needs their content, and ids marked per read-all step. */
const CHUNK = 500;

function entries(flat: string[]): Entry[] {
  const out: Entry[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ id: flat[i] as string, score: Number(flat[i + 1]) });
  return out;
}

/** Newest first; equal times in reverse id order, as ZREVRANGE orders them. */
function newestFirst(a: Entry, b: Entry): number {
  return b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

function parse(json: string): NotificationRecord {
  return JSON.parse(json) as NotificationRecord;
}

/**
 * Reads, marks and deletes the notification records that store/notifications.ts creates: ids come
 * newest first from the per-project sorted sets, records in one MGET per page.
 */
export function createNotificationQueries(redis: Redis) {
  const records = createNotificationStore(redis);

  async function load(ids: string[]): Promise<NotificationRecord[]> {
    if (ids.length === 0) return [];
    const docs = await redis.mget(ids.map((id) => keys.notification(id)));
    return docs.flatMap((json) => (json === null ? [] : [parse(json)]));
  }

  async function sum(counts: Promise<number>[]): Promise<number> {
    return (await Promise.all(counts)).reduce((a, b) => a + b, 0);
  }

  /** Without device or type filters: counts from ZCARD, the page from ZREVRANGE of each project. */
  async function listBySets(projectIds: string[], unreadOnly: boolean, offset: number, limit: number): Promise<NotificationPage> {
    const source = unreadOnly ? keys.projectUnreadNotifications : keys.projectNotifications;
    const [total, unread] = await Promise.all([
      sum(projectIds.map((p) => redis.zcard(source(p)))),
      sum(projectIds.map((p) => redis.zcard(keys.projectUnreadNotifications(p)))),
    ]);
    let ids: string[];
    if (projectIds.length === 1) {
      ids = await redis.zrevrange(source(projectIds[0] as string), offset, offset + limit - 1);
    } else {
      const heads = await Promise.all(projectIds.map((p) => redis.zrevrange(source(p), 0, offset + limit - 1, 'WITHSCORES')));
      ids = heads
        .flatMap(entries)
        .sort(newestFirst)
        .slice(offset, offset + limit)
        .map((e) => e.id);
    }
    return { notifications: await load(ids), total, unread };
  }

  /** With device or type filters: every record of the projects is read, CHUNK per MGET. */
  async function listByScan(projectIds: string[], filter: NotificationFilter, offset: number, limit: number): Promise<NotificationPage> {
    const all = (await Promise.all(projectIds.map((p) => redis.zrevrange(keys.projectNotifications(p), 0, -1, 'WITHSCORES'))))
      .flatMap(entries)
      .sort(newestFirst);
    const matched: Entry[] = [];
    let unread = 0;
    for (let i = 0; i < all.length; i += CHUNK) {
      const chunk = all.slice(i, i + CHUNK);
      const docs = await redis.mget(chunk.map((e) => keys.notification(e.id)));
      docs.forEach((json, j) => {
        if (json === null) return;
        const record = parse(json);
        if (filter.deviceId !== undefined && record.deviceId !== filter.deviceId) return;
        if (filter.type !== undefined && record.type !== filter.type) return;
        if (!record.read) unread++;
        if (!filter.unread || !record.read) matched.push(chunk[j] as Entry);
      });
    }
    const ids = matched.slice(offset, offset + limit).map((e) => e.id);
    return { notifications: await load(ids), total: matched.length, unread };
  }

  /** `json` is the record with read true, or '' for an id whose record is gone (it only leaves the unread set). */
  async function markIds(unreadKey: string, items: { id: string; json: string }[]): Promise<number> {
    if (items.length === 0) return 0;
    const updated = await MARK_READ(
      redis,
      [unreadKey, ...items.map((item) => keys.notification(item.id))],
      items.flatMap((item) => [item.id, item.json]),
    );
    return Number(updated);
  }

  const asRead = (record: NotificationRecord) => JSON.stringify({ ...record, read: true });

  return {
    get: records.get,

    /** Notifications of the given projects, newest first, filtered and paged (page from 1). */
    list(projectIds: string[], filter: NotificationFilter, page: number, limit: number): Promise<NotificationPage> {
      const offset = (page - 1) * limit;
      if (filter.deviceId === undefined && filter.type === undefined) {
        return listBySets(projectIds, filter.unread === true, offset, limit);
      }
      return listByScan(projectIds, filter, offset, limit);
    },

    /** Marks one record read; returns it as stored now, or null when it is gone. */
    async markRead(record: NotificationRecord): Promise<NotificationRecord | null> {
      if (record.read) return record;
      const updated = await markIds(keys.projectUnreadNotifications(record.projectId), [{ id: record.id, json: asRead(record) }]);
      return updated === 1 ? { ...record, read: true } : records.get(record.id);
    },

    /** Marks every unread record of the projects read; returns how many changed. */
    async markAllRead(projectIds: string[]): Promise<number> {
      let updated = 0;
      for (const projectId of projectIds) {
        const unreadKey = keys.projectUnreadNotifications(projectId);
        for (;;) {
          const ids = await redis.zrange(unreadKey, '0', String(CHUNK - 1));
          if (ids.length === 0) break;
          const docs = await redis.mget(ids.map((id) => keys.notification(id)));
          const items = ids.map((id, i) => {
            const json = docs[i];
            return { id, json: json ? asRead(parse(json)) : '' };
          });
          updated += await markIds(unreadKey, items);
        }
      }
      return updated;
    },

    async delete(record: NotificationRecord): Promise<boolean> {
      const done = await DELETE(
        redis,
        [keys.notification(record.id), keys.projectNotifications(record.projectId), keys.projectUnreadNotifications(record.projectId)],
        [record.id],
      );
      return done === 1;
    },
  };
}

export type NotificationQueries = ReturnType<typeof createNotificationQueries>;
