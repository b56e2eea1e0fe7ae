import { serviceUnavailable, type ErrorDetail } from '../../common/errors';
import { dependencyDown } from './dependency-down';

/**
 * What became of one entry of a batch a dependency failed in the middle of (docs/architecture.md
 * "Batches a dependency fails in the middle of"): `stored`; `not stored` (skipped, e.g. a locked
 * pin, or never attempted); `unknown` (the dependency failed while it was being written: a write
 * sent to a frozen Redis may still land when it wakes).
 */
export type EntryOutcome = 'stored' | 'not stored' | 'unknown';

/**
 * Writes the entries of a batch one after another, in order. When a dependency fails midway the
 * rest are not attempted and the request answers 503 SERVICE_UNAVAILABLE naming the dependency,
 * followed by one detail per entry `{field: "<field>.<i>", problem: <EntryOutcome>}`, so a client
 * knows exactly which entries were stored and never reads success for one that was not. Any other
 * error is rethrown as it is.
 */
export async function writeEntries<E, R>(
  entries: readonly E[],
  field: string,
  write: (entry: E) => Promise<R>,
  stored: (result: R) => boolean,
): Promise<R[]> {
  const results: R[] = [];
  for (const entry of entries) {
    try {
      results.push(await write(entry));
    } catch (err) {
      const dependency = dependencyDown(err);
      if (!dependency) throw err;
      const outcome = (i: number): EntryOutcome => {
        const done = results[i];
        if (done !== undefined) return stored(done) ? 'stored' : 'not stored';
        return i === results.length ? 'unknown' : 'not stored';
      };
      const details: ErrorDetail[] = entries.map((_, i) => ({ field: `${field}.${i}`, problem: outcome(i) }));
      const storedCount = details.filter((d) => d.problem === 'stored').length;
      throw serviceUnavailable(
        dependency,
        `${dependency} became unavailable during the batch: ${storedCount} of ${entries.length} entries stored, entry ${results.length} unknown, the rest not written (details say which)`,
        details,
      );
    }
  }
  return results;
}
