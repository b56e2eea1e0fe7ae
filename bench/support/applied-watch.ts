import { setTimeout as delay } from 'node:timers/promises';

export interface AppliedWatch {
  /** Ids to check from now on (checked in the order added, each until it is seen applied). */
  add(ids: readonly string[]): void;
  /** No more ids will come: resolves once every id added is seen applied, or at the cap, with when each was first seen so (epoch ms) and the checks made. */
  done(): Promise<{ seen: Map<string, number>; checks: number }>;
}

/**
 * Checks ids `lanes` at a time until `applied(id)` holds for each (a check that throws counts as
 * not yet), round-robin over those not yet seen applied, each at most once every `recheckMs`, for
 * at most `capMs`. What it reads is when
 * each id was first seen applied: at most one round of the queue after it was.
 */
export function watchApplied(applied: (id: string) => Promise<boolean>, lanes: number, capMs: number, recheckMs: number): AppliedWatch {
  const queue: { id: string; checkedAt: number }[] = [];
  const seen = new Map<string, number>();
  const deadline = Date.now() + capMs;
  let closed = false;
  let checks = 0;
  const lane = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const next = queue.shift();
      if (next === undefined) {
        if (closed) return;
        await delay(50);
        continue;
      }
      const wait = next.checkedAt + recheckMs - Date.now();
      if (wait > 0) await delay(wait);
      checks += 1;
      const ok = await applied(next.id).catch(() => false);
      if (ok) seen.set(next.id, Date.now());
      else queue.push({ id: next.id, checkedAt: Date.now() });
    }
  };
  const lanesDone = Promise.all(Array.from({ length: lanes }, lane));
  return {
    add: (ids) => void queue.push(...ids.map((id) => ({ id, checkedAt: 0 }))),
    async done() {
      closed = true;
      await lanesDone;
      return { seen, checks };
    },
  };
}
