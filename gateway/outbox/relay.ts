import type { RedisCommander } from 'ioredis';
import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { OUTBOX_GROUP, parseIntent, type OutboxIntent } from '../../common/outbox-intents';
import { carryOutWithin, IntentNotDue, type IntentHandler, settleEntry } from './carry-out-now';
import type { IntentPacer } from './pacer';

export interface OutboxRelayOptions {
  /** A connection of the relay's own: XREADGROUP blocks it, and stop ends it. */
  redis: Redis;
  stream: string;
  /** This node's consumer name in the group. */
  consumer: string;
  handle: IntentHandler;
  logger: Logger;
  /** The first retry of a failed (or abandoned) entry waits this long; each next one twice as long. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** How long one XREADGROUP waits for new entries. */
  blockMs?: number;
  /** An intent not carried out within this long counts as failed (and is retried; it may still complete). */
  handleTimeoutMs?: number;
  /** Entries read (and carried out together) at a time; default 50. */
  batch?: number;
  /** A budget of intents in flight shared with other relays (pacer.ts): without one, a batch at a time. */
  pacer?: IntentPacer;
}

export interface OutboxRelay {
  /** Entries written and not yet carried out (pending or not yet read), at the last look. */
  backlog(): number;
  stop(): Promise<void>;
}

const BATCH = 50;
/** Pending entries looked at per round for retries (relay.ts retryDue). */
const PENDING_PAGE = 100;

/** Without a pacer: every read takes its whole batch, and there are no slots to give back. */
const unpaced: IntentPacer = { take: async (max) => max, giveBack: () => undefined, settled: () => undefined };

/** The wait before retry number `deliveries` (1 = the first retry). */
export function retryDelayMs(deliveries: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(deliveries - 1, 20)));
}

type StreamEntry = [id: string, fields: string[]];

interface ReadEntry {
  id: string;
  /** Null when this code does not know the entry's intent. */
  intent: OutboxIntent | null;
}

const readEntry = ([id, fields]: StreamEntry): ReadEntry => ({ id, intent: parseIntent(fields) });

/**
 * Which lane an entry goes in: one device's intents share a lane, and so do the `rules-changed`
 * intents that tell many twins (a fleet catch-up's chunks), so a node tells one chunk at a time:
 * fifty chunks side by side would be thousands of Updates at once, timing out and retried.
 */
function laneOf(entry: ReadEntry): string {
  const intent = entry.intent;
  if (intent?.type === 'rules-changed' && intent.payload.deviceIds.length > 1) return 'fleet';
  const payload = intent?.payload;
  return payload && 'deviceId' in payload && payload.deviceId ? `device:${payload.deviceId}` : `entry:${entry.id}`;
}

/**
 * The entries of one read, in lanes: one device's intents in the order they were written, one
 * after another (a twin drops an alarm edge older than the last it applied, so two edges handed
 * over side by side could lose one: docs/alarms.md), a fleet catch-up's chunks one after
 * another; everything else side by side.
 */
function lanesOf(entries: ReadEntry[]): ReadEntry[][] {
  const lanes = new Map<string, ReadEntry[]>();
  for (const entry of entries) {
    const key = laneOf(entry);
    const lane = lanes.get(key);
    if (lane) lane.push(entry);
    else lanes.set(key, [entry]);
  }
  return [...lanes.values()];
}

/**
 * The outbox relay, one per gateway node, all nodes in one consumer group. It reads new entries
 * (XREADGROUP), carries each out and acknowledges it (XACK, then XDEL) only after it was carried
 * out. An entry whose handling failed stays pending; so does one a dead node had read. Both are
 * retried by whichever node sees them idle past their backoff (XPENDING gives each entry's idle
 * time and delivery count, XCLAIM with that minimum idle time takes it, so two nodes never take
 * the same retry at once; the pending list is looked at page by page, so each entry's retry comes
 * when it is due, whatever fails ahead of it). Nothing is ever dropped: an entry that keeps failing
 * is retried at the longest backoff for as long as it fails, and shows as backlog (dds_outbox_pending).
 */
export async function startOutboxRelay(options: OutboxRelayOptions): Promise<OutboxRelay> {
  const { redis, stream, consumer, handle, logger } = options;
  const baseMs = options.retryBaseMs ?? 2_000;
  const maxMs = options.retryMaxMs ?? 60_000;
  const blockMs = options.blockMs ?? 1_000;
  const handleTimeoutMs = options.handleTimeoutMs ?? 5_000;
  const batch = options.batch ?? BATCH;
  const pacer = options.pacer ?? unpaced;
  // XCLAIM's overloads do not resolve on the union of a connection and a Cluster; both are this one commander.
  const commands: RedisCommander = redis;
  /** The stream and its group, made once by whichever node comes first (again if Redis lost them). */
  const ensureGroup = () =>
    redis.xgroup('CREATE', stream, OUTBOX_GROUP, '0', 'MKSTREAM').catch((err: unknown) => {
      if (!(err instanceof Error && err.message.includes('BUSYGROUP'))) throw err;
    });
  await ensureGroup();

  let stopped = false;
  /** While true the relay's connection waits in XREADGROUP BLOCK, which stop ends by closing it. */
  let blocked = false;
  let backlog = 0;
  let stop: () => void = () => undefined;
  const stopping = new Promise<number>((resolve) => (stop = () => resolve(0)));
  /** Slots of the pacer's, up to `max`, once one is free; none once the relay stops. */
  const slots = (max: number): Promise<number> => Promise.race([pacer.take(max), stopping]);

  /** Carries out an entry in a slot of the pacer's, and gives the slot back. */
  async function carryOut({ id, intent }: ReadEntry): Promise<void> {
    if (intent === null) {
      // Not an intent this code knows: kept pending (a newer node may know it) and logged.
      logger.error({ stream, id }, 'outbox entry not understood; left pending');
      pacer.giveBack(1);
      return;
    }
    try {
      await carryOutWithin(handle, intent, handleTimeoutMs);
    } catch (err) {
      pacer.settled(intent, false);
      const context = { err: err instanceof Error ? err.message : String(err), id, type: intent.type };
      if (err instanceof IntentNotDue) logger.debug(context, 'outbox intent not due yet');
      else logger.warn(context, 'outbox intent failed; will retry');
      return;
    }
    pacer.settled(intent, true);
    await settleEntry(redis, stream, id);
  }

  async function readNew(): Promise<void> {
    const taken = await slots(batch);
    if (taken === 0) return;
    let entries: StreamEntry[] = [];
    try {
      blocked = true;
      const reply = (await redis.xreadgroup('GROUP', OUTBOX_GROUP, consumer, 'COUNT', taken, 'BLOCK', blockMs, 'STREAMS', stream, '>')) as
        | [string, StreamEntry[]][]
        | null;
      entries = (reply ?? []).flatMap(([, read]) => read);
    } finally {
      blocked = false;
      pacer.giveBack(taken - entries.length);
    }
    await Promise.all(
      lanesOf(entries.map(readEntry)).map(async (lane) => {
        for (const entry of lane) await carryOut(entry);
      }),
    );
  }

  /**
   * Where the next look at the pending entries starts: each round looks at the next PENDING_PAGE of them
   * (by id) and takes over those idle past their backoff, and the look after the last page starts
   * from the first again. So every pending entry comes up in turn, and entries that keep failing
   * at the head of the list can never hide the ones behind them.
   */
  let pendingFrom = '-';

  /** Pending entries idle past their backoff: taken over (from this node or a dead one) and retried. */
  async function retryDue(): Promise<void> {
    const pending = (await redis.xpending(stream, OUTBOX_GROUP, 'IDLE', baseMs, pendingFrom, '+', PENDING_PAGE)) as [
      string,
      string,
      number,
      number,
    ][];
    const last = pending.at(-1);
    pendingFrom = pending.length < PENDING_PAGE || !last ? '-' : `(${last[0]}`;
    const due = pending.filter(([, , idle, deliveries]) => idle >= retryDelayMs(deliveries, baseMs, maxMs));
    for (const [id, , , deliveries] of due) {
      if ((await slots(1)) === 0) return;
      let claimed: StreamEntry[] = [];
      try {
        claimed = (await commands.xclaim(stream, OUTBOX_GROUP, consumer, retryDelayMs(deliveries, baseMs, maxMs), id)) as StreamEntry[];
      } finally {
        // A claimed id whose entry is gone comes back without fields: nothing is left to do for it.
        claimed = claimed.filter((entry) => entry?.[1]);
        if (claimed.length === 0) pacer.giveBack(1);
      }
      for (const entry of claimed) await carryOut(readEntry(entry));
    }
  }

  async function measure(): Promise<void> {
    backlog = await redis.xlen(stream);
  }

  const measuring = setInterval(() => {
    measure().catch(() => undefined);
  }, 1_000);
  await measure();

  const loop = (async () => {
    while (!stopped) {
      try {
        await readNew();
        if (stopped) break;
        await retryDue();
      } catch (err) {
        if (stopped) break;
        logger.warn({ err: err instanceof Error ? err.message : String(err), stream }, 'outbox relay round failed');
        if (err instanceof Error && err.message.includes('NOGROUP')) await ensureGroup().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, Math.min(blockMs, 1_000)));
      }
    }
  })();

  return {
    backlog: () => backlog,
    async stop() {
      stopped = true;
      stop();
      clearInterval(measuring);
      // A read waiting in BLOCK is cut short rather than waited out (up to blockMs): entries it took
      // meanwhile stay pending and are claimed by a relay again after retryBaseMs, as after a crash.
      if (blocked) redis.disconnect();
      await loop;
      redis.disconnect();
    },
  };
}
