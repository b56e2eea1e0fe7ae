import type { Redis } from 'ioredis';
import type { NotificationRecord } from '../common/contracts';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/** Idempotent create, one atomic round trip: 1 created, 0 already there (a retry), -1 the owner is gone. */
const CREATE = luaScript('create-notification-4');

export type CreateOutcome = 'created' | 'exists' | 'gone';

export interface CreateOptions {
  /** Write nothing unless this key exists (a late create for a deleted device leaves no orphan). */
  onlyIfExists?: string;
}

export interface NotificationStore {
  /**
   * Stores the record under its caller-chosen id. Creating the same id again is a no-op that
   * returns `exists`, so a retried caller never makes a duplicate.
   */
  create(record: NotificationRecord, options?: CreateOptions): Promise<CreateOutcome>;
  get(id: string): Promise<NotificationRecord | null>;
}

export function createNotificationStore(redis: Redis): NotificationStore {
  return {
    async create(record, options = {}) {
      const recordKey = keys.notification(record.id);
      const result = await CREATE(
        redis,
        [
          recordKey,
          keys.projectNotifications(record.projectId),
          keys.projectUnreadNotifications(record.projectId),
          options.onlyIfExists ?? recordKey,
        ],
        [JSON.stringify(record), String(Date.parse(record.createdAt)), record.id, record.read ? '1' : '0'],
      );
      return result === 1 ? 'created' : result === 0 ? 'exists' : 'gone';
    },

    async get(id) {
      const json = await redis.get(keys.notification(id));
      return json === null ? null : (JSON.parse(json) as NotificationRecord);
    },
  };
}
