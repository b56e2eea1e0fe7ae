import type { PoolClient } from 'pg';
import type { Pool } from './pool';

/** Runs `work` on one connection inside BEGIN … COMMIT; any failure rolls it back and is thrown again. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
