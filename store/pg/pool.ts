import { Pool } from 'pg';

export interface PoolOptions {
  /** Longest any one statement may run before PostgreSQL cancels it (ms). */
  statementTimeoutMs?: number;
  /** Longest to wait for a connection, new or from the pool (ms). */
  connectionTimeoutMs?: number;
  max?: number;
}

/** One node-postgres pool; every session is named for pg_stat_activity and bounded in time. */
export function createPgPool(url: string, applicationName: string, options: PoolOptions = {}): Pool {
  const pool = new Pool({
    connectionString: url,
    application_name: applicationName,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000,
    max: options.max ?? 10,
  });
  // An idle client losing its server must not crash the process; the next query gets a fresh one.
  pool.on('error', () => undefined);
  return pool;
}

export type { Pool };
