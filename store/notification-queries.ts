import { NOTIFICATION_RETENTION_DAYS_DEFAULT } from '../common/config';
import type { NotificationRecord } from '../common/contracts';
import type { Redis } from '../common/redis';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';
import { createNotificationStore, filterSetsOf, parseStored, retentionOf, type StoredNotification } from './notifications';

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
/** A read's first step in each project: the sets it reads lose what is past the retention. */
const TRIM = luaScript('trim-notifications-n');

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
 * newest first from the per-project sorted sets (the project's index, or the set of its filter:
 * a type, a device, both), records in one round trip per page. Read state is each member's own: a
 * per-project, per-member sorted set of the ids that member has not read
 * (`keys.projectMemberUnreadNotifications`), filled for every member when a notification is
 * created and for a new member from all of the project's when they join. Every read first drops
 * what is past the retention from the sets it reads, so no read counts or pages an expired record.
 * A read costs what its page costs (offset + limit ids per project), never the project's size.
 */
export function createNotificationQueries(redis: Redis, retentionDays = NOTIFICATION_RETENTION_DAYS_DEFAULT) {
  const records = createNotificationStore(redis, retentionDays);
  const retention = retentionOf(retentionDays);
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

  async function trim(sets: string[]): Promise<void> {
    const { cutoff, ms } = retention();
    await TRIM(redis, sets, [String(cutoff), String(ms)]);
  }

  /**
   * One project's part of a list: its count, its unread count and its first `end` entries, newest
   * first. `set` is the project's index or its filter's set; unread-only with a filter pages the
   * intersection of that set with the caller's unread set (ids only, those the caller has not read).
   */
  async function projectPart(userId: string, p: string, set: string, filtered: boolean, unreadOnly: boolean, start: number, end: number) {
    const unread = unreadKey(p, userId);
    await trim([set, unread]);
    const unreadCount = filtered ? redis.zintercard(2, set, unread) : redis.zcard(unread);
    if (unreadOnly && filtered) {
      const both = redis.zinter(2, [set, unread], 'AGGREGATE', 'MAX', 'WITHSCORES') as Promise<string[]>;
      const [count, flat] = await Promise.all([unreadCount, both]);
      return { total: count, unread: count, head: entries(p, flat).sort(newestFirst).slice(start, end) };
    }
    const source = unreadOnly ? unread : set;
    const [total, unreadTotal, flat] = await Promise.all([
      redis.zcard(source),
      unreadCount,
      redis.zrevrange(source, start, end - 1, 'WITHSCORES'),
    ]);
    return { total, unread: unreadTotal, head: entries(p, flat) };
  }

  /** Newest first over the projects: each gives its first offset + limit entries (all of them from `offset` when there is one project). */
  async function listOf(
    userId: string,
    projectIds: string[],
    filter: NotificationFilter,
    offset: number,
    limit: number,
  ): Promise<NotificationPage> {
    const filtered = filter.deviceId !== undefined || filter.type !== undefined;
    const unreadOnly = filter.unread === true;
    const one = projectIds.length === 1;
    const setOf = (p: string) =>
      filtered ? keys.projectNotificationsMatching(p, { deviceId: filter.deviceId, type: filter.type }) : keys.projectNotifications(p);
    const parts = await Promise.all(
      projectIds.map((p) => projectPart(userId, p, setOf(p), filtered, unreadOnly, one ? offset : 0, offset + limit)),
    );
    const heads = parts.map((part) => part.head);
    const page = one
      ? (heads[0] ?? [])
      : heads
          .flat()
          .sort(newestFirst)
          .slice(offset, offset + limit);
    const total = parts.reduce((n, part) => n + part.total, 0);
    const unread = parts.reduce((n, part) => n + part.unread, 0);
    return { notifications: await load(userId, page, unreadOnly), total, unread };
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
      return listOf(userId, projectIds, filter, (page - 1) * limit, limit);
    },

    /** Marks one record read for `userId` only; returns it as they see it now, or null when it is gone. */
    async markRead(record: StoredNotification, userId: string): Promise<NotificationRecord | null> {
      await redis.zrem(unreadKey(record.projectId, userId), record.id);
      return (await redis.exists(keys.notification(record.id))) === 1 ? { ...record, read: true } : null;
    },

    /** Marks every notification of the projects read for `userId` only, one atomic step per project (its slot); returns how many were unread. */
    async markAllRead(userId: string, projectIds: string[]): Promise<number> {
      const counts = await Promise.all(
        projectIds.map(async (p) => {
          await trim([unreadKey(p, userId)]);
          return Number((await redis.multi().zcard(unreadKey(p, userId)).del(unreadKey(p, userId)).exec())?.[0]?.[1] ?? 0);
        }),
      );
      return counts.reduce((a, b) => a + b, 0);
    },

    async delete(record: StoredNotification): Promise<boolean> {
      // The project's index first, the record last (docs/architecture.md "Redis Cluster").
      await UNINDEX(
        redis,
        [keys.projectNotifications(record.projectId), keys.projectMembers(record.projectId), ...filterSetsOf(record)],
        [record.id, unreadKey(record.projectId, '{user}')],
      );
      return (await redis.del(keys.notification(record.id))) === 1;
    },
  };
}

export type NotificationQueries = ReturnType<typeof createNotificationQueries>;
