import { ConfigError, loadConfig } from '../common/config';
import { requireCredentialKey } from '../common/credential-key';
import { createLogger } from '../common/logger';
import { guardProcess } from '../common/process-guards';
import { onShutdownSignal } from '../common/shutdown';
import { openHistoryDatabase } from '../store/pg/history-db';
import { composeGateway } from './compose';

/** A gateway node: HTTP + Socket.IO + MQTT bridge, no worker (the cluster runs workers apart). */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'gateway');
  // History still lives in Redis (issue 13 moves it): the database is only migrated and maintained here.
  const historyDb = config.DATABASE_URL
    ? await openHistoryDatabase(config.DATABASE_URL, `dds-gateway-${config.NODE_ID}`, config.HISTORY_RETENTION_DAYS, logger.child({ component: 'history-db' }))
    : null;
  const composed = await composeGateway(config, logger, requireCredentialKey(config));
  const port = await composed.gateway.listen(config.PORT);
  const metricsPort = await composed.gateway.listenMetrics();
  guardProcess(logger, composed.gateway.metrics);
  logger.info({ port, metricsPort }, 'gateway listening');
  onShutdownSignal(logger, async () => {
    await composed.stop();
    await historyDb?.close();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
