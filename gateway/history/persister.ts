import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { acknowledgePersisted, extraPoints, HISTORY_GROUP, parseEntry, streamLag, type StreamEntry } from '../../store/history-stream';
import { pointRow, type PointRow } from '../../store/pg/persist-points';
import { HISTORY_BATCH_POINTS, type PointWriter } from './point-writer';

export interface HistoryPersisterOptions {
  /** A connection of the persister's own: XREADGROUP blocks it. */
  redis: Redis;
  /** The node's writer to PostgreSQL, shared by its shards' persisters (gateway/history/point-writer.ts). */
  writer: PointWriter;
  stream: string;
  /** This node's consumer name in the group: a restarted node takes back its own pending batch at once. */
  consumer: string;
  /** Points older than this many days are past retention: acknowledged, not stored. */
  retentionDays: number;
  logger: Logger;
  /** A read takes as many entries as should carry about this many points (the writer's statement size). */
  batchSize?: number;
  /** How long one XREADGROUP waits for new entries. */
  blockMs?: number;
  /**
   * After a read that came back with less than a tenth of a batch, the next read of new entries
   * waits for the next multiple of this many ms of the clock: a steady trickle is read in batches
   * of up to lingerMs' worth, and the persisters of every shard read on the same beat, so the
   * writer puts their batches in one statement (0: read again at once).
   */
  lingerMs?: number;
  /** Entries another consumer read and left unacknowledged this long are taken over (that node died). */
  claimIdleMs?: number;
}

export interface HistoryPersister {
  /** Points not yet persisted and the age (s) of the oldest, at the last look. */
  lag(): { backlog: number; lagSeconds: number };
  stop(): Promise<void>;
}

type ReadReply = [string, StreamEntry[]][] | null;

/** Batches in flight at once: the next is read and parsed while the writer has the one before. */
const MAX_IN_FLIGHT = 2;

/**
 * The history persister, one per gateway node, all in one consumer group on the history stream.
 * Each round takes a batch (first its own pending entries, i.e. a batch that failed; then entries
 * a dead node left idle past claimIdleMs; then new ones), hands it to the node's point writer
 * (one statement for the batches of all shards that arrive together, exactly once), and only then acknowledges and deletes the
 * entries (history-ack-2.lua, which also takes a bulk entry's extra points off the backlog
 * counter). A crash anywhere before that leaves the batch pending, to be written again: points
 * already stored are skipped by their identity, so nothing is lost or counted twice. While
 * PostgreSQL is down the batch is retried with backoff and the stream grows up to its bound.
 * An entry may carry one point or a bulk import's thousand (store/history-stream.ts): each read
 * asks for as many entries as the last one needed per batchSize points.
 */
export async function startHistoryPersister(options: HistoryPersisterOptions): Promise<HistoryPersister> {
  const { redis, writer, stream, consumer, logger } = options;
  const batchSize = options.batchSize ?? HISTORY_BATCH_POINTS;
  const blockMs = options.blockMs ?? 1_000;
  const claimIdleMs = options.claimIdleMs ?? 10_000;
  const lingerMs = options.lingerMs ?? 0;
  /** A read carrying fewer points than this is a trickle: the next read lingers. */
  const trickle = Math.max(1, Math.floor(batchSize / 10));
  const ensureGroup = () =>
    redis.xgroup('CREATE', stream, HISTORY_GROUP, '0', 'MKSTREAM').catch((err: unknown) => {
      if (!(err instanceof Error && err.message.includes('BUSYGROUP'))) throw err;
    });
  await ensureGroup();

  let stopped = false;
  let ownPending = true;
  let lastClaim = 0;
  let lag = { backlog: 0, lagSeconds: 0 };
  /** Entries per read: batchSize when entries carry one point, fewer when they carry many. */
  let entriesPerRead = batchSize;
  /** When the next read of new entries may go out (the linger after a trickle). */
  let readAgainAt = 0;

  const readGroup = async (id: '0' | '>', block: boolean): Promise<StreamEntry[]> => {
    const reply = (
      block
        ? await redis.xreadgroup('GROUP', HISTORY_GROUP, consumer, 'COUNT', entriesPerRead, 'BLOCK', blockMs, 'STREAMS', stream, id)
        : await redis.xreadgroup('GROUP', HISTORY_GROUP, consumer, 'COUNT', entriesPerRead, 'STREAMS', stream, id)
    ) as ReadReply;
    return reply?.[0]?.[1] ?? [];
  };

  /** Entries idle past claimIdleMs in another consumer's hands, taken over (at most once a claim interval). */
  const claimAbandoned = async (): Promise<StreamEntry[]> => {
    if (Date.now() - lastClaim < claimIdleMs / 2) return [];
    lastClaim = Date.now();
    const [, entries] = (await redis.xautoclaim(stream, HISTORY_GROUP, consumer, claimIdleMs, '0-0', 'COUNT', entriesPerRead)) as [
      string,
      StreamEntry[],
    ];
    // A batch of this node's own that has been in flight that long is not abandoned.
    const inFlightIds = new Set([...inFlight.values()].flat());
    return entries.filter(([id]) => !inFlightIds.has(id));
  };

  /**
   * The rows of a batch's points to write (made at once, so the entries and their points die young),
   * and what acknowledgePersisted needs to acknowledge it afterwards.
   */
  function prepare(entries: StreamEntry[]): { rows: PointRow[]; acks: (string | number)[] } {
    const oldestKept = Date.now() - options.retentionDays * 86_400_000;
    const rows: PointRow[] = [];
    // Pairs of entry id and the points it carries beyond one.
    const acks: (string | number)[] = [];
    let carriedTotal = 0;
    for (const entry of entries) {
      const carried = parseEntry(entry);
      carriedTotal += carried?.length ?? 1;
      // An entry without fields was deleted after it was read: there is nothing left to write.
      if (carried === null) {
        if (entry[1]) logger.error({ stream, id: entry[0] }, 'history entry not understood; dropped');
      } else {
        for (const point of carried) if (point.ms >= oldestKept) rows.push(pointRow(point));
      }
      acks.push(entry[0], extraPoints(entry));
    }
    entriesPerRead = Math.max(1, Math.min(batchSize, Math.floor((batchSize * entries.length) / carriedTotal)));
    readAgainAt = carriedTotal < trickle && lingerMs > 0 ? Math.ceil((Date.now() + 1) / lingerMs) * lingerMs : 0;
    return { rows, acks };
  }

  async function persist({ rows, acks }: { rows: PointRow[]; acks: (string | number)[] }): Promise<void> {
    await writer.write(rows);
    await acknowledgePersisted(redis, stream, acks);
  }

  // Up to MAX_IN_FLIGHT batches at once: the next batch is read and parsed while PostgreSQL
  // writes the one before. A failed batch stops the loop until all in flight have settled.
  // Each batch in flight with its entry ids (only those are kept: the entries themselves die young).
  const inFlight = new Map<Promise<void>, string[]>();
  let failure: { err: unknown } | null = null;
  const launch = (entries: StreamEntry[]): void => {
    const ids = entries.map(([id]) => id);
    const writing: Promise<void> = persist(prepare(entries))
      .catch((err: unknown) => {
        failure ??= { err };
      })
      .finally(() => inFlight.delete(writing));
    inFlight.set(writing, ids);
  };

  /**
   * Reads the next batch (this node's own pending entries first, then abandoned ones, then new
   * ones) and launches its write; false when there was none. A function of its own so that no
   * frame still holds the entries while the round waits on writes in flight: a suspended async
   * function keeps its locals, and a batch held for as long as PostgreSQL takes outlived V8's
   * young generation (docs/benchmarks.md).
   */
  async function readAndLaunch(): Promise<boolean> {
    let entries: StreamEntry[] = [];
    if (ownPending) {
      // Pending entries include those in flight: reread them only once those are settled.
      await Promise.all(inFlight.keys());
      entries = await readGroup('0', false);
      if (entries.length === 0) ownPending = false;
    }
    if (entries.length === 0) entries = await claimAbandoned();
    // A blocking read holds the connection: only when no batch in flight waits to be acknowledged on it.
    if (entries.length === 0) {
      const linger = readAgainAt - Date.now();
      if (linger > 0) await new Promise((resolve) => setTimeout(resolve, linger));
      entries = await readGroup('>', inFlight.size === 0);
    }
    if (entries.length === 0) return false;
    launch(entries);
    return true;
  }

  async function round(): Promise<void> {
    const launched = await readAndLaunch();
    if (inFlight.size >= MAX_IN_FLIGHT || (!launched && inFlight.size > 0)) await Promise.race(inFlight.keys());
    if (failure) {
      await Promise.all(inFlight.keys());
      const { err } = failure;
      failure = null;
      throw err;
    }
  }

  const measuring = setInterval(() => {
    streamLag(redis, stream)
      .then((now) => (lag = now))
      .catch(() => undefined);
  }, 1_000);

  const loop = (async () => {
    let backoffMs = 100;
    while (!stopped) {
      try {
        await round();
        backoffMs = 100;
      } catch (err) {
        await Promise.all(inFlight.keys());
        failure = null;
        ownPending = true;
        logger.warn(
          { err: err instanceof Error ? err.message : String(err), stream, retryInMs: backoffMs },
          'history batch not persisted; will retry',
        );
        if (err instanceof Error && err.message.includes('NOGROUP')) await ensureGroup().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, backoffMs));
        backoffMs = Math.min(backoffMs * 2, 5_000);
      }
    }
    await Promise.all(inFlight.keys());
  })();

  return {
    lag: () => lag,
    async stop() {
      stopped = true;
      clearInterval(measuring);
      await loop;
    },
  };
}
