import type { Logger } from './logger';
import type { Metrics } from './metrics';

/**
 * Keeps a started node up through a fault nothing else caught: an unhandled promise rejection or
 * an uncaught exception is logged (pino, error level, with its stack) and counted in
 * `dds_process_faults_total` when the node has metrics, and the node keeps serving. Installed
 * once a node has started, so a failed start still ends the process (docs/architecture.md).
 */
export function guardProcess(logger: Logger, metrics?: Metrics): void {
  process.on('unhandledRejection', (reason: unknown) => {
    metrics?.process.fault();
    logger.error({ err: reason }, 'unhandled rejection; still serving');
  });
  process.on('uncaughtException', (err: Error, origin: string) => {
    metrics?.process.fault();
    logger.error({ err, origin }, 'uncaught exception; still serving');
  });
}
