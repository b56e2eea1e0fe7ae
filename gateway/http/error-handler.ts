import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, isAppError, type ErrorCode } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { StoreError, type StoreErrorCode } from '../../store/errors';
import { errorBody } from './respond';

interface BodyParserError {
  type: string;
  status?: number;
}

function isBodyParserError(e: unknown): e is BodyParserError {
  return typeof e === 'object' && e !== null && typeof (e as { type?: unknown }).type === 'string';
}

function isDependencyDown(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'].includes(String(code)) ||
    /Connection is closed|Stream isn't writeable|MaxRetriesPerRequest|failed to connect|Temporal.*unavailable/i.test(e.message)
  );
}

/** What each store error means to an HTTP client: the one place store errors become HTTP ones. */
export const STORE_ERROR_HTTP = {
  DEVICE_GONE: 'DEVICE_NOT_FOUND',
  PIN_LOCKED: 'PIN_LOCKED',
  KEPT_CHANGING: 'CONFLICT',
} as const satisfies Record<StoreErrorCode, ErrorCode>;

/** Maps anything thrown into one AppError: the only place errors become HTTP answers. */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (err instanceof StoreError) return new AppError(STORE_ERROR_HTTP[err.code], err.message);
  if (isBodyParserError(err)) {
    if (err.type === 'entity.parse.failed') return new AppError('VALIDATION_ERROR', 'The body is not valid JSON');
    if (err.type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE');
    if (err.status && err.status >= 400 && err.status < 500) return new AppError('VALIDATION_ERROR', 'The body could not be read');
  }
  if (isDependencyDown(err)) return new AppError('SERVICE_UNAVAILABLE');
  return new AppError('INTERNAL_ERROR');
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appError = toAppError(err);
    if (appError.status >= 500) logger.error({ err, method: req.method, path: req.path }, 'request failed');
    if (res.headersSent) return;
    res.status(appError.status).json(errorBody(appError));
  };
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new AppError('NOT_FOUND', 'No such endpoint'));
};
