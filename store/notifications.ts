import type { Redis } from 'ioredis';
import type { NotificationRecord } from '../common/contracts';
import { keys } from '../common/redis-keys';

/**
 * Idempotent create, one atomic round trip.
 * KEYS: 1 notification:{id}, 2 project:{pid}:notifications, 3 project:{pid}:notifications:unread,
 *       4 the key that must still exist (e.g. device:{id}), or the notification key itself when none
 * ARGV: 1 record JSON, 2 score (createdAt ms), 3 id, 4 '1' when read
 * Returns 1 created, 0 already there (a retry), -1 the owner is gone (nothing written).
 */
const CREATE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if KEYS[4] ~= KEYS[1] and redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
if ARGV[4] ~= '1' then redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3]) end
return 1
`;

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
      const result = await redis.eval(
        CREATE_LUA,
        4,
        recordKey,
        keys.projectNotifications(record.projectId),
        keys.projectUnreadNotifications(record.projectId),
        options.onlyIfExists ?? recordKey,
        JSON.stringify(record),
        String(Date.parse(record.createdAt)),
        record.id,
        record.read ? '1' : '0',
      );
      return result === 1 ? 'created' : result === 0 ? 'exists' : 'gone';
    },

    async get(id) {
      const json = await redis.get(keys.notification(id));
      return json === null ? null : (JSON.parse(json) as NotificationRecord);
    },
  };
}
