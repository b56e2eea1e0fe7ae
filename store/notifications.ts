import type { Redis } from '../common/redis';
import type { NotificationRecord } from '../common/contracts';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/**
 * Idempotent create in two single-slot steps (docs/architecture.md "Redis Cluster"): the record
 * (SET NX), then the project's index and every current member's unread set. The record alone is
 * in no list, so a crash between shows nothing; the caller's retry finishes the second step.
 */
const INDEX = luaScript('index-notification-n');

export type CreateOutcome = 'created' | 'exists' | 'gone';

/**
 * A notification as read back: `read` is each member's own (store/notification-queries.ts). The
 * JSON keeps the record as created, `read: false` (every member starts unread), never updated.
 */
export type StoredNotification = Omit<NotificationRecord, 'read'>;

export interface CreateOptions {
  /** Write nothing unless this key exists (a late create for a deleted device leaves no orphan; checked before the steps, not in them). */
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
      if (options.onlyIfExists !== undefined && (await redis.exists(options.onlyIfExists)) === 0) return 'gone';
      const created = (await redis.set(recordKey, JSON.stringify({ ...record, read: false }), 'NX')) === 'OK';
      await INDEX(
        redis,
        [keys.projectNotifications(record.projectId), keys.projectMembers(record.projectId)],
        [String(Date.parse(record.createdAt)), record.id, keys.projectMemberUnreadNotifications(record.projectId, '{user}')],
      );
      return created ? 'created' : 'exists';
    },

    async get(id) {
      const json = await redis.get(keys.notification(id));
      return json === null ? null : parseStored(json);
    },
  };
}
