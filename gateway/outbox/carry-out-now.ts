import { withDeadline } from '../../common/deadline';
import type { OutboxIntent, WrittenIntent } from '../../common/outbox-intents';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { OUTBOX_GROUP } from '../../common/outbox-intents';

/**
 * Thrown by a handler for an intent whose time has not come (a compensation written ahead of the
 * step it may undo, due once that step has surely finished): retried later like a failure, logged
 * only at debug level.
 */
export class IntentNotDue extends Error {
  constructor(readonly dueAt: string) {
    super(`not due before ${dueAt}`);
    this.name = 'IntentNotDue';
  }
}

/** Throws IntentNotDue until `dueAt` (ISO 8601, or epoch ms) has passed. */
export function requireDue(dueAt: string | number): void {
  const due = typeof dueAt === 'number' ? dueAt : Date.parse(dueAt);
  if (due > Date.now()) throw new IntentNotDue(new Date(due).toISOString());
}

/** Carries out one intent; throws to have it retried later. Must be idempotent: delivery is at least once. */
export type IntentHandler = (intent: OutboxIntent) => Promise<void>;

/** Runs `handle(intent)`, failing it when it is not done within `timeoutMs` (it may still complete). */
export function carryOutWithin(handle: IntentHandler, intent: OutboxIntent, timeoutMs: number): Promise<void> {
  return withDeadline(handle(intent), timeoutMs, () => new Error(`not carried out within ${timeoutMs} ms`));
}

/** Takes a carried-out entry off the outbox: acknowledged for the group (if a relay read it) and deleted. */
export async function settleEntry(redis: Redis, stream: string, entryId: string): Promise<void> {
  await redis.multi().xack(stream, OUTBOX_GROUP, entryId).xdel(stream, entryId).exec();
}

/** How long a request waits on its own attempt: short enough that it answers within 2 s when a dependency hangs. */
const INLINE_TIMEOUT_MS = 1_500;

export interface CarryOutNowOptions {
  redis: Redis;
  handle: IntentHandler;
  logger: Logger;
  timeoutMs?: number;
}

/** Carries out intents a request just wrote, before it answers; what fails stays in the outbox for the relay. */
export type CarryOutNow = (written: WrittenIntent | WrittenIntent[] | null) => Promise<void>;

/**
 * The request's own attempt at the intents its store step wrote, so that what the caller sees next
 * (a twin that reloaded its rules, a device that can no longer log in) has already happened when
 * the answer leaves. Each one carried out is taken off the outbox; one that fails (Temporal or the
 * broker down) stays there and the relay carries it out later. A relay that read the entry
 * meanwhile may carry it out a second time: every handler is idempotent.
 */
export function carryOutNow({ redis, handle, logger, timeoutMs = INLINE_TIMEOUT_MS }: CarryOutNowOptions): CarryOutNow {
  return async (written) => {
    const entries = written === null ? [] : Array.isArray(written) ? written : [written];
    await Promise.all(
      entries.map(async ({ stream, entryId, intent }) => {
        try {
          await carryOutWithin(handle, intent, timeoutMs);
        } catch (err) {
          logger.warn(
            { err: err instanceof Error ? err.message : String(err), entryId, type: intent.type },
            'intent left to the outbox relay',
          );
          return;
        }
        await settleEntry(redis, stream, entryId).catch((err: unknown) =>
          logger.warn(
            { err: err instanceof Error ? err.message : String(err), entryId },
            'carried-out intent left in the outbox; the relay repeats it',
          ),
        );
      }),
    );
  };
}
