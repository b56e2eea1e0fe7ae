import { persistRows, type PointRow } from '../../store/pg/persist-points';
import type { Pool } from '../../store/pg/pool';

/**
 * How long the first batch handed over waits for others: the persisters of a node's shards read
 * on the same beat (gateway/history/persister.ts), so their batches arrive within a few ms.
 */
const GATHER_MS = 5;

/** Points per statement, and about how many a persister's read asks for. */
export const HISTORY_BATCH_POINTS = 5_000;

export interface PointWriter {
  /** Resolves once every point is committed (or was there already); rejects when its statement failed. */
  write(rows: readonly PointRow[]): Promise<void>;
}

interface Handed {
  rows: readonly PointRow[];
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * One node's writer of history points to PostgreSQL, shared by its persisters (one per shard):
 * the batches handed over within GATHER_MS go out as one statement (persistRows, exactly once),
 * so a trickle spread over 16 shards costs PostgreSQL one statement per beat instead of sixteen.
 * Batches that together reach `batchSize` points go at once, and no statement holds more than
 * `batchSize` points. When a shared statement fails, each
 * batch in it is written again on its own, so a batch PostgreSQL refuses fails alone and the
 * other shards' points still land.
 */
export function createPointWriter(pool: Pool, batchSize = HISTORY_BATCH_POINTS): PointWriter {
  let gathered: Handed[] = [];
  let count = 0;
  let timer: NodeJS.Timeout | null = null;

  async function writeAlone(batch: Handed): Promise<void> {
    for (let start = 0; start < batch.rows.length; start += batchSize) {
      await persistRows(pool, batch.rows.slice(start, start + batchSize));
    }
  }

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const batches = gathered;
    gathered = [];
    count = 0;
    if (batches.length === 1) {
      const [batch] = batches as [Handed];
      writeAlone(batch).then(batch.resolve, batch.reject);
      return;
    }
    persistRows(
      pool,
      batches.flatMap((b) => b.rows),
    ).then(
      () => batches.forEach((b) => b.resolve()),
      () => batches.forEach((b) => writeAlone(b).then(b.resolve, b.reject)),
    );
  }

  return {
    write(rows) {
      if (rows.length === 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        // A statement holds at most batchSize points, unless one batch alone is larger (then it is split).
        if (count > 0 && count + rows.length > batchSize) flush();
        gathered.push({ rows, resolve, reject });
        count += rows.length;
        if (count >= batchSize) flush();
        else timer ??= setTimeout(flush, GATHER_MS);
      });
    },
  };
}
