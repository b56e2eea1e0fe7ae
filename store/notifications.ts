import { NOTIFICATION_RETENTION_DAYS_DEFAULT } from '../common/config';
import type { Redis } from '../common/redis';
import type { NotificationRecord } from '../common/contracts';
import { keys } from '../common/redis-keys';
import { luaScript } from './lua/load';

/**
 * Idempotent create in two single-slot steps (docs/architecture.md "Redis Cluster"): the record
 * (SET NX, expiring with the retention), then the project's index, the filter sets and every
 * current member's unread set. The record alone is in no list, so a crash between shows nothing;
 * the caller's retry finishes the second step.
 */
const INDEX = luaScript('index-notification-n');

/** A retention in days (NOTIFICATION_RETENTION_DAYS) as the window the notification scripts keep. */
export interface Retention {
  /** Entries with a createdAt before this (epoch ms) are gone. */
  cutoff: number;
  ms: number;
}

export function retentionOf(days: number): () => Retention {
  const ms = Math.round(days * 86_400_000);
  return () => ({ cutoff: Date.now() - ms, ms });
}

/** The filter sets a record is in (keys.projectNotificationsMatching): its type, and its device alone and with the type. */
export function filterSetsOf(record: Pick<NotificationRecord, 'projectId' | 'deviceId' | 'type'>): string[] {
  const { projectId, deviceId, type } = record;
  const sets = [keys.projectNotificationsMatching(projectId, { type })];
  if (deviceId)
    sets.push(keys.projectNotificationsMatching(projectId, { deviceId }), keys.projectNotificationsMatching(projectId, { deviceId, type }));
  return sets;
}

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

/** `retentionDays`: NOTIFICATION_RETENTION_DAYS; a record expires that long after its createdAt. */
export function createNotificationStore(redis: Redis, retentionDays = NOTIFICATION_RETENTION_DAYS_DEFAULT): NotificationStore {
  const retention = retentionOf(retentionDays);
  return {
    async create(record, options = {}) {
      const recordKey = keys.notification(record.id);
      if (options.onlyIfExists !== undefined && (await redis.exists(options.onlyIfExists)) === 0) return 'gone';
      const { cutoff, ms } = retention();
      const at = Date.parse(record.createdAt);
      const created = (await redis.set(recordKey, JSON.stringify({ ...record, read: false }), 'PXAT', at + ms, 'NX')) === 'OK';
      const { projectId } = record;
      await INDEX(
        redis,
        [
          keys.projectNotifications(projectId),
          keys.projectMembers(projectId),
          keys.projectNotificationSets(projectId),
          ...filterSetsOf(record),
        ],
        [String(at), record.id, keys.projectMemberUnreadNotifications(projectId, '{user}'), String(cutoff), String(ms)],
      );
      return created ? 'created' : 'exists';
    },

    async get(id) {
      const json = await redis.get(keys.notification(id));
      return json === null ? null : parseStored(json);
    },
  };
}
