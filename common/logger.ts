import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

/** Paths whose values are never written to a log line. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'key',
  '*.key',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
];

/**
 * JSON lines (for log collectors) unless `pretty`: then short coloured lines for a person at a
 * terminal (`npm start` on a TTY), same fields, same redaction.
 */
export function createLogger(level: string, name: string, options: { pretty?: boolean } = {}): Logger {
  const settings = { level, name, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (!options.pretty) return pino(settings);
  return pino(settings, pretty({ sync: true, translateTime: 'HH:MM:ss', ignore: 'pid,hostname', singleLine: true }));
}

export type { Logger };
