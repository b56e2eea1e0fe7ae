import { setMaxListeners } from 'node:events';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { keys, shardStreams } from '../../common/redis-keys';
import type { IntentHandler } from './carry-out-now';
import { createPacer } from './pacer';
import { startOutboxRelay, type OutboxRelay } from './relay';
import { untilTwinConfirmed } from './twin-confirmed';

/** Every outbox stream a node relays: each shard's `outbox` and each shard's `outbox-online`. */
export function relayedStreams(taskQueue: string): { stream: string; online: boolean }[] {
  return [
    ...shardStreams(keys.outbox(taskQueue)).map((stream) => ({ stream, online: false })),
    ...shardStreams(keys.onlineOutbox(taskQueue)).map((stream) => ({ stream, online: true })),
  ];
}

export interface OutboxRelaysOptions {
  /** `relayedStreams(taskQueue)`, each with a connection of its own (its XREADGROUP blocks). */
  streams: { stream: string; online: boolean; redis: Redis }[];
  /** What the `twin-online` pacer reads the mirror with. */
  redis: Redis;
  consumer: string;
  handle: IntentHandler;
  logger: Logger;
  /** `twin-online` intents in flight on this node, from read to confirmed by their twin (ONLINE_RELAY_SLOTS). */
  onlineSlots: number;
  /** The longest one of them holds its slot waiting for its twin; default 10 s. */
  confirmCapMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How long an intent may take before it counts as failed (relay.ts); default 5 s. */
  handleTimeoutMs?: number;
}

/**
 * A node's outbox relays (docs/architecture.md "Outbox" and "Reconnect storms"): per shard, one
 * relay of `outbox` (every intent but `twin-online`, 50 at a time as written) and one of
 * `outbox-online`, whose relays share a budget of `onlineSlots` intents from read to confirmed by
 * their twin. So a storm's backlog drains at the pace the twins confirm, keeps at most
 * `onlineSlots` twins per node busy in Temporal (a new twin's start waits behind those, not behind
 * the storm), and never delays a notification, a rule change or a twin start.
 */
export async function startOutboxRelays(options: OutboxRelaysOptions): Promise<OutboxRelay[]> {
  const { redis, consumer, handle, logger } = options;
  // Each `outbox-online` relay reads its share of the slots at a time, so relays blocked on an empty
  // stream never hold the slots another shard's intents wait for.
  const onlineBatch = Math.max(1, Math.floor(options.onlineSlots / Math.max(1, options.streams.filter((s) => s.online).length)));
  // The slots' waits for their twins end when the relays stop, not up to confirmCapMs later (each
  // slot's wait listens on the signal: as many listeners as slots is the expected, not a leak).
  const stopping = new AbortController();
  setMaxListeners(options.onlineSlots, stopping.signal);
  const pacer = createPacer(
    options.onlineSlots,
    untilTwinConfirmed({ redis, capMs: options.confirmCapMs ?? 10_000, everyMs: 100, signal: stopping.signal }),
  );
  const retry = {
    ...(options.retryBaseMs === undefined ? {} : { retryBaseMs: options.retryBaseMs }),
    ...(options.retryMaxMs === undefined ? {} : { retryMaxMs: options.retryMaxMs }),
    ...(options.handleTimeoutMs === undefined ? {} : { handleTimeoutMs: options.handleTimeoutMs }),
  };
  const relays = await Promise.all(
    options.streams.map(({ stream, online, redis: connection }) =>
      startOutboxRelay({
        redis: connection,
        stream,
        consumer,
        handle,
        logger,
        ...retry,
        ...(online ? { pacer, batch: onlineBatch } : {}),
      }),
    ),
  );
  return relays.map((relay) => ({
    ...relay,
    stop: () => {
      stopping.abort();
      return relay.stop();
    },
  }));
}
