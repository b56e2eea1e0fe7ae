import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from './pool';

/** Where the numbered SQL files live (copied beside the compiled runner by scripts/copy-lua.sh). */
export const MIGRATIONS_DIR = join(__dirname, 'migrations');

/** The advisory lock that serialises runners (the one-key form; partitions use the two-key form). */
const MIGRATION_LOCK_KEY = 6579300;

interface Migration {
  version: number;
  name: string;
  sql: string;
}

function readMigrations(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file, sql: readFileSync(join(dir, file), 'utf8') }));
}

/**
 * Applies each migration not yet recorded in `schema_migrations`, in order, each in its own
 * transaction holding `pg_advisory_xact_lock`: two nodes starting at once queue on the lock, and
 * the second finds the version recorded and skips it. Returns the versions this call applied.
 */
export async function migrate(pool: Pool, dir: string = MIGRATIONS_DIR): Promise<number[]> {
  const applied: number[] = [];
  const client = await pool.connect();
  try {
    for (const migration of readMigrations(dir)) {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
        await client.query(
          'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
        );
        const done = await client.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
        if (done.rowCount === 0) {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          applied.push(migration.version);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
    }
  } finally {
    client.release();
  }
  return applied;
}
