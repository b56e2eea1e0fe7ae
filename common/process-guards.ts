import type { Logger } from './logger';
import type { Metrics } from './metrics';

/** The one counter of survived faults, on GET /metrics of a node that has it. */
export const PROCESS_FAULTS_METRIC = 'dds_process_faults_total';

/**
 * Keeps a started node up through a fault nothing else caught: an unhandled promise rejection or
 * an uncaught exception is logged (pino, error level, with its stack) and counted in
 * `dds_process_faults_total` when the node has metrics, and the node keeps serving. Installed
 * once a node has started, so a failed start still ends the process (docs/architecture.md).
 */
export function guardProcess(logger: Logger, metrics?: Metrics): void {
  const faults = metrics?.counter(PROCESS_FAULTS_METRIC, 'Unhandled rejections and uncaught exceptions the node logged and survived');
  process.on('unhandledRejection', (reason: unknown) => {
    faults?.inc();
    logger.error({ err: reason }, 'unhandled rejection; still serving');
  });
  process.on('uncaughtException', (err: Error, origin: string) => {
    faults?.inc();
    logger.error({ err, origin }, 'uncaught exception; still serving');
  });
}
