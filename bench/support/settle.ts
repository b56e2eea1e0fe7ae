import { setTimeout as delay } from 'node:timers/promises';

/**
 * Polls `read` until it reaches `target`, stops changing for `quietMs`, or `capMs` passes;
 * returns the last value read. Used to let a pipeline drain after the load stops.
 */
export async function settle(read: () => Promise<number> | number, target: number, quietMs = 5000, capMs = 60_000): Promise<number> {
  const deadline = Date.now() + capMs;
  let value = await read();
  let changedAt = Date.now();
  while (value < target && Date.now() < deadline && Date.now() - changedAt < quietMs) {
    await delay(250);
    const next = await read();
    if (next !== value) changedAt = Date.now();
    value = next;
  }
  return value;
}
