import type { Logger } from 'pino';
import { startPartitionMaintenance } from './maintenance';
import { migrate } from './migrate';
import { createPgPool, type Pool } from './pool';

export interface HistoryDatabase {
  pool: Pool;
  close(): Promise<void>;
}

/**
 * Opens the history database at start: a pool, the migrations, and the hourly partition
 * maintenance. A node that cannot reach it or migrate it does not start.
 */
export async function openHistoryDatabase(
  url: string,
  applicationName: string,
  retentionDays: number,
  logger: Logger,
): Promise<HistoryDatabase> {
  const pool = createPgPool(url, applicationName);
  try {
    const applied = await migrate(pool);
    if (applied.length > 0) logger.info({ applied }, 'history database migrated');
    const maintenance = await startPartitionMaintenance(pool, retentionDays, logger);
    return {
      pool,
      async close() {
        maintenance.stop();
        await pool.end();
      },
    };
  } catch (err) {
    await pool.end();
    throw err;
  }
}
