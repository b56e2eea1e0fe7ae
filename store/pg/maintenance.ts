import type { Logger } from 'pino';
import type { Pool } from './pool';
import { dropExpiredPartitions, ensurePointPartitions } from './partitions';

/** Hourly, not daily: both steps are idempotent and cheap, and a missed day can never leave a gap. */
const MAINTENANCE_INTERVAL_MS = 3_600_000;

/**
 * Keeps the daily `points` partitions made ahead and drops those past retention: once now, then
 * every hour until stopped. Every node may run it; the DDL is idempotent.
 */
export async function startPartitionMaintenance(pool: Pool, retentionDays: number, logger: Logger): Promise<{ stop(): void }> {
  const once = async (): Promise<void> => {
    const created = await ensurePointPartitions(pool, retentionDays);
    const dropped = await dropExpiredPartitions(pool, retentionDays);
    if (created > 0 || dropped.length > 0) logger.info({ created, dropped }, 'history partitions maintained');
  };
  await once();
  const timer = setInterval(() => {
    once().catch((err: unknown) => logger.error({ err }, 'history partition maintenance failed; retrying in an hour'));
  }, MAINTENANCE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
