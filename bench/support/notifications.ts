import { setTimeout as delay } from 'node:timers/promises';
import type { NotificationRecord } from '../../common/contracts';
import type { ApiCall } from './api';

/** Every notification of `type` in the project (GET /api/v1/notifications, 100 a page; at most 10,000, the list's depth). */
export async function listNotifications(call: ApiCall, projectId: string, type: string): Promise<NotificationRecord[]> {
  const found = new Map<string, NotificationRecord>();
  for (let page = 1; page <= 100; page++) {
    const { notifications, total } = await call<{ notifications: NotificationRecord[]; total: number }>(
      'GET',
      `/api/v1/notifications?projectId=${projectId}&type=${type}&limit=100&page=${page}`,
    );
    for (const n of notifications) found.set(n.id, n);
    if (notifications.length < 100 || page * 100 >= total) break;
  }
  return [...found.values()];
}

/**
 * Polls the project's notifications of `type` every second until each device of `sentAt` has one
 * created at or after its time there, or `capMs` passes: each device's delay (ms) from that time
 * to its first such notification's `createdAt` (devices with none are left out).
 */
export async function waitForNotified(
  call: ApiCall,
  projectId: string,
  type: string,
  sentAt: ReadonlyMap<string, number>,
  capMs: number,
): Promise<Map<string, number>> {
  const delays = new Map<string, number>();
  const deadline = Date.now() + capMs;
  while (delays.size < sentAt.size && Date.now() < deadline) {
    await delay(1000);
    for (const n of await listNotifications(call, projectId, type)) {
      const at = n.deviceId === null ? undefined : sentAt.get(n.deviceId);
      const created = Date.parse(n.createdAt);
      if (at === undefined || created < at) continue;
      const known = delays.get(n.deviceId as string);
      if (known === undefined || created - at < known) delays.set(n.deviceId as string, created - at);
    }
  }
  return delays;
}
