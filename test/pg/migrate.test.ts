import { migrate } from '../../store/pg/migrate';
import { freshDatabase } from './fresh-database';

describe('PostgreSQL migrations', () => {
  it('two runners starting at once apply each migration exactly once, and a third applies none', async () => {
    const db = await freshDatabase();
    try {
      const [first, second] = await Promise.all([migrate(db.pool()), migrate(db.pool())]);
      expect([...first, ...second].sort()).toEqual([1, 2, 3, 4]);
      expect(await migrate(db.pool())).toEqual([]);
      const { rows } = await db.pool().query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((row) => row.version)).toEqual([1, 2, 3, 4]);
      const tables = await db
        .pool()
        .query<{ name: string }>(`SELECT to_regclass('points')::text AS name UNION ALL SELECT to_regclass('rollup_1m')::text`);
      expect(tables.rows.map((row) => row.name)).toEqual(['points', 'rollup_1m']);
    } finally {
      await db.drop();
    }
  });
});
