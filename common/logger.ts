import pino, { type Logger } from 'pino';

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

export function createLogger(level: string, name: string): Logger {
  return pino({ level, name, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

export type { Logger };
