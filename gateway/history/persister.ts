import type { Logger } from '../../common/logger';
import type { Redis } from '../../common/redis';
import { HISTORY_GROUP, parseEntry, streamLag, type StreamEntry } from '../../store/history-stream';
import { persistPoints, type StreamPoint } from '../../store/pg/persist-points';
import type { Pool } from '../../store/pg/pool';

export interface HistoryPersisterOptions {
  /** A connection of the persister's own: XREADGROUP blocks it. */
  redis: Redis;
  pool: Pool;
  stream: string;
  /** This node's consumer name in the group: a restarted node takes back its own pending batch at once. */
  consumer: string;
  /** Points older than this many days are past retention: acknowledged, not stored. */
  retentionDays: number;
  logger: Logger;
  /** Entries per batch (one INSERT). */
  batchSize?: number;
  /** How long one XREADGROUP waits for new entries. */
  blockMs?: number;
  /** Entries another consumer read and left unacknowledged this long are taken over (that node died). */
  claimIdleMs?: number;
}

export interface HistoryPersister {
  /** Points not yet persisted and the age (s) of the oldest, at the last look. */
  lag(): { backlog: number; lagSeconds: number };
  stop(): Promise<void>;
}

type ReadReply = [string, StreamEntry[]][] | null;

/**
 * The history persister, one per gateway node, all in one consumer group on the history stream.
 * Each round takes a batch (first its own pending entries, i.e. a batch that failed; then entries
 * a dead node left idle past claimIdleMs; then new ones), writes it with persistPoints (one
 * transaction, exactly once), and only then acknowledges and deletes the entries (XACK + XDEL in
 * one MULTI). A crash anywhere before that leaves the batch pending, to be written again: points
 * already stored are skipped by their identity, so nothing is lost or counted twice. While
 * PostgreSQL is down the batch is retried with backoff and the stream grows up to its bound.
 */
export async function startHistoryPersister(options: HistoryPersisterOptions): Promise<HistoryPersister> {
  const { redis, pool, stream, consumer, logger } = options;
  const batchSize = options.batchSize ?? 5_000;
  const blockMs = options.blockMs ?? 1_000;
  const claimIdleMs = options.claimIdleMs ?? 10_000;
  const ensureGroup = () =>
    redis.xgroup('CREATE', stream, HISTORY_GROUP, '0', 'MKSTREAM').catch((err: unknown) => {
      if (!(err instanceof Error && err.message.includes('BUSYGROUP'))) throw err;
    });
  await ensureGroup();

  let stopped = false;
  let ownPending = true;
  let lastClaim = 0;
  let lag = { backlog: 0, lagSeconds: 0 };

  const readGroup = async (id: '0' | '>', block: boolean): Promise<StreamEntry[]> => {
    const reply = (
      block
        ? await redis.xreadgroup('GROUP', HISTORY_GROUP, consumer, 'COUNT', batchSize, 'BLOCK', blockMs, 'STREAMS', stream, id)
        : await redis.xreadgroup('GROUP', HISTORY_GROUP, consumer, 'COUNT', batchSize, 'STREAMS', stream, id)
    ) as ReadReply;
    return reply?.[0]?.[1] ?? [];
  };

  /** Entries idle past claimIdleMs in another consumer's hands, taken over (at most once a claim interval). */
  const claimAbandoned = async (): Promise<StreamEntry[]> => {
    if (Date.now() - lastClaim < claimIdleMs / 2) return [];
    lastClaim = Date.now();
    const [, entries] = (await redis.xautoclaim(stream, HISTORY_GROUP, consumer, claimIdleMs, '0-0', 'COUNT', batchSize)) as [string, StreamEntry[]];
    return entries;
  };

  async function persist(entries: StreamEntry[]): Promise<void> {
    const oldestKept = Date.now() - options.retentionDays * 86_400_000;
    const points: StreamPoint[] = [];
    for (const entry of entries) {
      const point = parseEntry(entry);
      // An entry without fields was deleted after it was read: there is nothing left to write.
      if (point === null) {
        if (entry[1]) logger.error({ stream, id: entry[0] }, 'history entry not understood; dropped');
      } else if (point.ms >= oldestKept) points.push(point);
    }
    await persistPoints(pool, points);
    const ids = entries.map(([id]) => id);
    await redis.multi().xack(stream, HISTORY_GROUP, ...ids).xdel(stream, ...ids).exec();
  }

  async function round(): Promise<void> {
    let entries: StreamEntry[] = [];
    if (ownPending) {
      entries = await readGroup('0', false);
      if (entries.length === 0) ownPending = false;
    }
    if (entries.length === 0) entries = await claimAbandoned();
    if (entries.length === 0) entries = await readGroup('>', true);
    if (entries.length > 0) await persist(entries);
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
        ownPending = true;
        logger.warn({ err: err instanceof Error ? err.message : String(err), stream, retryInMs: backoffMs }, 'history batch not persisted; will retry');
        if (err instanceof Error && err.message.includes('NOGROUP')) await ensureGroup().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, backoffMs));
        backoffMs = Math.min(backoffMs * 2, 5_000);
      }
    }
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
