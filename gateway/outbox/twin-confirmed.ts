import { setTimeout as delay } from 'node:timers/promises';
import type { OutboxIntent } from '../../common/outbox-intents';
import type { Redis } from '../../common/redis';
import { keys } from '../../common/redis-keys';

export interface TwinConfirmedOptions {
  redis: Redis;
  /** The longest a `twin-online` holds its slot waiting for its twin (the signal is in Temporal by then). */
  capMs: number;
  /** How often the mirror is looked at meanwhile. */
  everyMs: number;
  /** Aborted when the node's relays stop: a wait still running gives its slot back at once. */
  signal: AbortSignal;
}

/**
 * Resolves once the twin a `twin-online` intent went to has confirmed the mirror (write-status-4.lua
 * removed `statusAhead`), or after `capMs`; other intents at once. The pacer of the `twin-online`
 * relays holds each slot this long, so a node keeps at most its slots' worth of twins confirming in
 * Temporal at a time (docs/architecture.md "Reconnect storms"). A stopping node stops waiting.
 * Liveness follows workflows/twin/liveness.ts: the twin's decision, not this wait, settles the status.
 */
export function untilTwinConfirmed({ redis, capMs, everyMs, signal }: TwinConfirmedOptions): (intent: OutboxIntent) => Promise<void> {
  return async (intent) => {
    if (intent.type !== 'twin-online') return;
    const key = keys.deviceState(intent.payload.deviceId);
    const until = Date.now() + capMs;
    while (!signal.aborted && Date.now() < until && (await redis.hget(key, 'statusAhead')) !== null) {
      await delay(everyMs, undefined, { signal }).catch(() => undefined);
    }
  };
}
