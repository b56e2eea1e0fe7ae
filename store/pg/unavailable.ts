import { AppError, DependencyUnavailableError } from '../../common/errors';

/** SQLSTATE classes that mean the server, not the query: connection (08), resources (53), operator (57, incl. statement timeout), system (58). */
const SERVER_TROUBLE = /^(08|53|57|58)/;

/**
 * Whether a node-postgres error says PostgreSQL is unreachable or unwell rather than the query
 * wrong: a network error or a closed connection (no SQLSTATE), or one of the classes above.
 */
export function postgresDown(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return SERVER_TROUBLE.test(code);
  return err instanceof Error;
}

/**
 * Runs a query; PostgreSQL being down becomes DependencyUnavailableError('postgres') (a 503 naming
 * it). The service's own verdicts (AppError, such as an upload streamed into a transaction found too
 * large or empty) pass through as they are.
 */
export async function withPostgres<T>(query: () => Promise<T>): Promise<T> {
  try {
    return await query();
  } catch (err) {
    throw !(err instanceof AppError) && postgresDown(err) ? new DependencyUnavailableError('postgres', { cause: err }) : err;
  }
}
