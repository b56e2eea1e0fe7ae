import { setTimeout as delay } from 'node:timers/promises';

/** Runs `task` over `items`, `lanes` at a time. */
export async function pool<T>(items: readonly T[], lanes: number, task: (item: T, index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await task(items[index] as T, index);
      }
    }),
  );
}

/** Polls `check` every `everyMs` until it holds; throws naming `what` after `capMs`. Resolves with the ms waited. */
export async function waitUntil(what: string, check: () => Promise<boolean>, capMs: number, everyMs = 100): Promise<number> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > capMs) throw new Error(`${what}: not reached within ${capMs / 1000} s`);
    await delay(everyMs);
  }
  return Date.now() - t0;
}

/** `fn`'s result and how long it took (ms). */
export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const result = await fn();
  return [result, performance.now() - t0];
}

/** Every `n`-th of `items` (`count` of them, spread over the list): a sample that spans a run's order. */
export function spread<T>(items: readonly T[], count: number): T[] {
  const n = Math.min(count, items.length);
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)] as T);
}
