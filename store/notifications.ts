import type { Redis } from '../common/redis';
import type { NotificationRecord } from '../common/contracts';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/**
 * Idempotent create, one atomic round trip: 1 created, 0 already there (a retry), -1 the owner is
 * gone. The notification starts unread for every member the project has at that moment.
 */
const CREATE = luaScript('create-notification-n');

export type CreateOutcome = 'created' | 'exists' | 'gone';

/**
 * A notification as read back: `read` is each member's own (store/notification-queries.ts). The
 * JSON keeps the record as created, `read: false` (every member starts unread), never updated.
 */
export type StoredNotification = Omit<NotificationRecord, 'read'>;

export interface CreateOptions {
  /** Write nothing unless this key exists (a late create for a deleted device leaves no orphan). */
  onlyIfExists?: string;
}

export interface NotificationStore {
  /**
   * Stores the record under its caller-chosen id, unread for every current member of its project
   * (whatever its `read` says). Creating the same id again is a no-op that returns `exists`, so a
   * retried caller never makes a duplicate.
   */
  create(record: NotificationRecord, options?: CreateOptions): Promise<CreateOutcome>;
  get(id: string): Promise<StoredNotification | null>;
}

/** The stored JSON without its `read`, which says nothing about any member. */
export function parseStored(json: string): StoredNotification {
  const { read: _read, ...stored } = JSON.parse(json) as NotificationRecord;
  return stored;
}

export function createNotificationStore(redis: Redis): NotificationStore {
  return {
    async create(record, options = {}) {
      const recordKey = keys.notification(record.id);
      const result = await CREATE(
        redis,
        [recordKey, keys.projectNotifications(record.projectId), keys.projectMembers(record.projectId), options.onlyIfExists ?? recordKey],
        [JSON.stringify({ ...record, read: false }), String(Date.parse(record.createdAt)), record.id, keys.projectMemberUnreadNotifications(record.projectId, '{user}')],
      );
      return result === 1 ? 'created' : result === 0 ? 'exists' : 'gone';
    },

    async get(id) {
      const json = await redis.get(keys.notification(id));
      return json === null ? null : parseStored(json);
    },
  };
}
