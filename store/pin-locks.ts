import type { PinLock } from '../common/contracts';

/**
 * The lock mirror `device:{id}:locks` (field = pin name, value = JSON `{lockedAt, widgetId}`) as
 * locks ordered by pin name. A malformed entry is dropped; the twin rewrites the locks it holds.
 */
export function parseLocks(hash: Record<string, string>): PinLock[] {
  const locks: PinLock[] = [];
  for (const [pin, json] of Object.entries(hash)) {
    try {
      const v = JSON.parse(json) as { lockedAt?: string; widgetId?: string | null };
      locks.push({ pin, lockedAt: v.lockedAt ?? new Date(0).toISOString(), widgetId: v.widgetId ?? null });
    } catch {}
  }
  return locks.sort((a, b) => a.pin.localeCompare(b.pin, 'en', { numeric: true }));
}
