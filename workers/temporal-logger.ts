import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import type { Logger } from '../common/logger';

const LEVELS: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/** The workflow bundler's webpack report (tens of lines at INFO) goes to debug; warnings and errors stay. */
const QUIET: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = { ...LEVELS, INFO: 'debug' };

/**
 * Routes the Temporal SDK's logs (worker, workflow `log`, activity context) into pino; `quiet`
 * lowers INFO to debug (for the workflow bundler, see workers/create-worker.ts).
 */
export function temporalLogger(logger: Logger, quiet = false): TemporalLogger {
  const levels = quiet ? QUIET : LEVELS;
  const log = (level: LogLevel, message: string, meta?: LogMetadata): void => {
    logger[levels[level]]({ ...meta }, message);
  };
  return {
    log,
    trace: (m, meta) => log('TRACE', m, meta),
    debug: (m, meta) => log('DEBUG', m, meta),
    info: (m, meta) => log('INFO', m, meta),
    warn: (m, meta) => log('WARN', m, meta),
    error: (m, meta) => log('ERROR', m, meta),
  };
}
