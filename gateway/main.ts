import { ConfigError, loadConfig } from '../common/config';
import { requireCredentialKey } from '../common/credential-key';
import { createLogger } from '../common/logger';
import { guardProcess } from '../common/process-guards';
import { onShutdownSignal } from '../common/shutdown';
import { composeGateway } from './compose';

/** A gateway node: HTTP + Socket.IO + MQTT bridge, no worker (the cluster runs workers apart). */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL, 'gateway');
  const composed = await composeGateway(config, logger, requireCredentialKey(config));
  const port = await composed.gateway.listen(config.PORT);
  const metricsPort = await composed.gateway.listenMetrics();
  guardProcess(logger, composed.gateway.metrics);
  logger.info({ port, metricsPort }, 'gateway listening');
  onShutdownSignal(logger, async () => {
    await composed.stop();
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
