import { freshDatabase } from './fresh-database';

describe('PostgreSQL pool', () => {
  it('cancels a statement that outlives the statement timeout with an error', async () => {
    const db = await freshDatabase();
    try {
      const pool = db.pool({ statementTimeoutMs: 200 });
      const started = Date.now();
      await expect(pool.query('SELECT pg_sleep(10)')).rejects.toThrow(/statement timeout/);
      expect(Date.now() - started).toBeLessThan(5_000);
      const { rows } = await pool.query<{ name: string }>('SELECT current_setting($1) AS name', ['application_name']);
      expect(rows[0]?.name).toBe('dds-test');
    } finally {
      await db.drop();
    }
  });
});
