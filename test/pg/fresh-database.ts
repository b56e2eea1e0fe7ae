import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createPgPool, type Pool, type PoolOptions } from '../../store/pg/pool';

/** A new, empty database on the harness's PostgreSQL, so test files never share a schema. */
export async function freshDatabase(): Promise<{ url: string; pool(options?: PoolOptions): Pool; drop(): Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error('DATABASE_URL is not set: the jest global setup starts PostgreSQL');
  const name = `dds_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pools: Pool[] = [];
  return {
    url: url.toString(),
    pool(options) {
      const pool = createPgPool(url.toString(), 'dds-test', options);
      pools.push(pool);
      return pool;
    },
    async drop() {
      await Promise.all(pools.map((pool) => pool.end()));
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
