import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { AppError, isAppError, quotaExceeded, QuotaExceededError, serviceUnavailable, type ErrorCode } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { StoreError, type StoreErrorCode } from '../../store/errors';
import { dependencyDown } from './dependency-down';
import { errorBody } from './respond';

/**
 * An error Express or body-parser raises for a request it cannot read: http-errors style, with a
 * 4xx `status`; body-parser adds a `type` (a zlib failure inside a Content-Encoding has none).
 */
interface RequestReadError {
  status: number;
  type?: unknown;
}

function isRequestReadError(e: unknown): e is RequestReadError {
  if (!(e instanceof Error)) return false;
  const status = (e as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** Express 5's router could not percent-decode a path parameter (`%FF`, `%C3%28`): a URIError with status 400. */
export function isMalformedPathParam(e: unknown): boolean {
  return e instanceof URIError && isRequestReadError(e);
}

/** True when `text` (a raw path segment) percent-decodes as UTF-8. */
export function percentDecodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lets an interface answer a path parameter that does not percent-decode with its own code (the
 * external REST interface follows SPEC §7); any other error passes on to `errorHandler`.
 */
export function malformedPathParam(toError: (req: Request) => AppError): ErrorRequestHandler {
  return (err, req, _res, next) => next(isMalformedPathParam(err) ? toError(req) : err);
}

function requestReadError(err: RequestReadError): AppError {
  if (isMalformedPathParam(err)) {
    return new AppError('VALIDATION_ERROR', 'A path parameter is not valid percent-encoded UTF-8', [
      { field: 'params', problem: 'not valid percent-encoded UTF-8' },
    ]);
  }
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('VALIDATION_ERROR', 'The body is not valid JSON');
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE');
    default:
      return new AppError('VALIDATION_ERROR', 'The body could not be read (a broken Content-Encoding or an aborted upload)');
  }
}

/** What each store error means to an HTTP client: the one place store errors become HTTP ones. */
const STORE_ERROR_HTTP = {
  DEVICE_GONE: 'DEVICE_NOT_FOUND',
  PIN_LOCKED: 'PIN_LOCKED',
  DEVICE_RATE: 'RATE_LIMIT_EXCEEDED',
  KEPT_CHANGING: 'CONFLICT',
  HISTORY_BACKLOG: 'SERVICE_UNAVAILABLE',
} as const satisfies Record<StoreErrorCode, ErrorCode>;

/**
 * Maps anything thrown into one AppError: the only place errors become HTTP answers. Every
 * failure to read the request (body-parser, a Content-Encoding that does not inflate, a path
 * parameter that does not percent-decode) is a 4xx here, never a 500.
 */
export function toAppError(err: unknown): AppError {
  if (isAppError(err)) return err;
  if (err instanceof QuotaExceededError) return quotaExceeded(err);
  if (err instanceof StoreError && err.code === 'HISTORY_BACKLOG') return serviceUnavailable('postgres');
  if (err instanceof StoreError) return new AppError(STORE_ERROR_HTTP[err.code], err.message);
  if (isRequestReadError(err)) return requestReadError(err);
  const dependency = dependencyDown(err);
  if (dependency) return serviceUnavailable(dependency);
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
