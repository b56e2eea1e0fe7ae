import { withDeadline } from '../../common/deadline';

/** Polls until `check` stops throwing (returning its value) or the time is up (rethrowing its last error). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > until) throw err;
      await sleep(everyMs);
    }
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** `answer`, or a failure naming `what` when it has not come within `ms` (a request that hangs). */
export function answerWithin<T>(ms: number, what: string, answer: Promise<T>): Promise<T> {
  return withDeadline(answer, ms, () => new Error(`${what}: no answer within ${ms} ms`));
}
