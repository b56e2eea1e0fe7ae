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
 * The answer to a batch that `err` interrupted: for a dependency that failed, 503
 * SERVICE_UNAVAILABLE naming it, followed by one detail per entry `{field: "<field>.<i>",
 * problem: <EntryOutcome>}`, so a client knows exactly which entries were stored and never reads
 * success for one that was not; any other error as it is.
 */
export function batchInterrupted(err: unknown, field: string, outcomes: readonly EntryOutcome[]): unknown {
  const dependency = dependencyDown(err);
  if (!dependency) return err;
  const details: ErrorDetail[] = outcomes.map((problem, i) => ({ field: `${field}.${i}`, problem }));
  const count = (outcome: EntryOutcome) => outcomes.filter((o) => o === outcome).length;
  return serviceUnavailable(
    dependency,
    `${dependency} became unavailable during the batch: ${count('stored')} of ${outcomes.length} entries stored, ${count('unknown')} unknown, the rest not written (details say which)`,
    details,
  );
}

/**
 * Writes the entries of a batch one after another, in order. When a dependency fails midway the
 * rest are not attempted and the request answers as `batchInterrupted` says.
 */
export async function writeEntries<E, R>(
  entries: readonly E[],
  field: string,
  write: (entry: E) => Promise<R>,
  stored: (result: R) => boolean,
): Promise<R[]> {
  const outcomes: EntryOutcome[] = entries.map(() => 'not stored');
  const results: R[] = [];
  for (const [i, entry] of entries.entries()) {
    outcomes[i] = 'unknown';
    try {
      results.push(await write(entry));
    } catch (err) {
      throw batchInterrupted(err, field, outcomes);
    }
    outcomes[i] = stored(results[i] as R) ? 'stored' : 'not stored';
  }
  return results;
}
