import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../common/logger';

/**
 * Finishes in the background what a request had to leave unfinished because a dependency failed
 * (docs/architecture.md "Nothing half-written"): releasing the lock of a widget that was not
 * stored, re-sending a device password the broker may or may not have taken.
 */
export interface Settler {
  /**
   * Runs `step` at once and then again with backoff (0.5 s doubling up to 30 s) until it resolves
   * true, or this node stops. False or a throw means "not yet". `step` must be idempotent.
   */
  settle(what: string, context: Record<string, unknown>, step: () => Promise<boolean>): void;
  /** Ends the retries (each one still unsettled is logged at error level) and waits for the attempts under way. */
  stop(): Promise<void>;
}

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

export function createSettler(logger: Logger): Settler {
  const stopping = new AbortController();
  const running = new Set<Promise<void>>();

  async function retry(what: string, context: Record<string, unknown>, step: () => Promise<boolean>): Promise<void> {
    for (let attempt = 1; !stopping.signal.aborted; attempt++) {
      try {
        if (await step()) {
          logger.info({ ...context, attempts: attempt }, `${what}: done`);
          return;
        }
      } catch (err) {
        logger.warn({ err, ...context, attempt }, `${what}: not yet`);
      }
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(attempt - 1, 16));
      await sleep(delay, undefined, { signal: stopping.signal }).catch(() => undefined);
    }
    logger.error(context, `${what}: not done when the node stopped`);
  }

  return {
    settle(what, context, step) {
      const work = retry(what, context, step);
      running.add(work);
      void work.finally(() => running.delete(work));
    },
    async stop() {
      stopping.abort();
      await Promise.allSettled([...running]);
    },
  };
}
