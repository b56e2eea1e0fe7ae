import { PER_PROJECT, quotaLabel, type QuotaResource } from './quotas';

/** Every error code the service returns, declared once with its HTTP status and default message. */
export const ERRORS = {
  VALIDATION_ERROR: { status: 400, message: 'The request is not valid' },
  INVALID_PIN: { status: 400, message: 'Pin name or payload is invalid' },
  VALUE_TOO_LARGE: { status: 400, message: 'Value exceeds the byte limit of the pin type' },
  UNAUTHORIZED: { status: 401, message: 'Authentication is required' },
  INVALID_CREDENTIALS: { status: 401, message: 'Email or password is wrong' },
  MISSING_API_KEY: { status: 401, message: 'The X-API-Key header is missing' },
  INVALID_API_KEY: { status: 401, message: 'The API key is invalid or expired' },
  MISSING_TOKEN: { status: 401, message: 'The token query parameter is missing' },
  INVALID_TOKEN: { status: 401, message: 'The device token is invalid' },
  INVALID_PROVISIONING_KEY: { status: 401, message: 'The provisioning key is wrong, or provisioning is disabled for its template' },
  FORBIDDEN: { status: 403, message: 'You may not do this' },
  PLAN_FEATURE_UNAVAILABLE: { status: 403, message: 'Your plan does not include this feature' },
  QUOTA_EXCEEDED: { status: 403, message: "The plan's quota for this resource is used up; nothing was created" },
  PIN_LOCKED: { status: 403, message: 'The pin is locked' },
  SIMPLE_API_DISABLED: { status: 403, message: 'The simple API is disabled for this device' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  USER_NOT_FOUND: { status: 404, message: 'User not found' },
  PROJECT_NOT_FOUND: { status: 404, message: 'Project not found' },
  DEVICE_NOT_FOUND: { status: 404, message: 'Device not found' },
  PIN_NOT_FOUND: { status: 404, message: 'Pin has no recorded value' },
  WIDGET_NOT_FOUND: { status: 404, message: 'Widget not found' },
  RULE_NOT_FOUND: { status: 404, message: 'Notification rule not found' },
  TEMPLATE_NOT_FOUND: { status: 404, message: 'Template not found' },
  NOTIFICATION_NOT_FOUND: { status: 404, message: 'Notification not found' },
  ALARM_NOT_FOUND: { status: 404, message: 'Alarm not found' },
  COMMAND_NOT_FOUND: { status: 404, message: 'Command not found' },
  FIRMWARE_NOT_FOUND: { status: 404, message: 'Firmware image not found' },
  JOB_NOT_FOUND: { status: 404, message: 'Job not found' },
  API_KEY_NOT_FOUND: { status: 404, message: 'API key not found' },
  MEMBER_NOT_FOUND: { status: 404, message: 'Member not found' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state' },
  ALREADY_PROVISIONED: { status: 409, message: 'A device with this serial was already provisioned from this template' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The body is in a content encoding or charset the service does not read' },
  RATE_LIMIT_EXCEEDED: { status: 429, message: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, message: 'Internal error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'A dependency is unavailable; nothing was written' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorDetail {
  field: string;
  problem: string;
}

/** The details of a 403 QUOTA_EXCEEDED (DESIGN §11): which quota, its limit, how much of it is used. */
export interface QuotaDetails {
  resource: QuotaResource;
  limit: number;
  used: number;
}

/** The one error type handlers throw; the error middleware renders it as the SPEC envelope. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: ErrorDetail[] | QuotaDetails,
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.status = ERRORS[code].status;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/**
 * A create refused by its quota's atomic check (store/quota-ledger.ts): nothing was written. The
 * error middleware renders it as 403 QUOTA_EXCEEDED with these details.
 */
export class QuotaExceededError extends Error {
  constructor(readonly details: QuotaDetails) {
    super(`Quota ${details.resource} is used up: ${details.used} of ${details.limit}`);
    this.name = 'QuotaExceededError';
  }
}

/** The answer to a QuotaExceededError: its message names the resource and the limit, for a console to show as it is. */
export function quotaExceeded({ details }: QuotaExceededError): AppError {
  const { resource, limit, used } = details;
  const scope = PER_PROJECT.has(resource) ? ' per project' : '';
  return new AppError(
    'QUOTA_EXCEEDED',
    `Your plan allows ${limit} ${quotaLabel(resource)}${scope} (${used} used); nothing was created`,
    details,
  );
}

/** The servers a request may need; named in a 503's details as `{field: 'dependency', problem: <name>}`. */
export type Dependency = 'redis' | 'temporal' | 'mqtt' | 'postgres';

/**
 * A dependency did not answer in time or could not be reached. Thrown by the clients of Redis,
 * Temporal and the broker (common/redis.ts, gateway/temporal/twin-client.ts, gateway/temporal/notifier.ts, the
 * dynsec client); the error middleware renders it as 503 SERVICE_UNAVAILABLE naming `dependency`.
 */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: Dependency,
    options?: { cause?: unknown },
  ) {
    super(`${dependency} is unavailable`, options);
    this.name = 'DependencyUnavailableError';
  }
}

/**
 * The AppError a client sees for an unavailable dependency: every 503 naming one is built here.
 * `more` follows the dependency detail (a batch says there what became of each entry).
 */
export function serviceUnavailable(
  dependency: Dependency,
  message = `${ERRORS.SERVICE_UNAVAILABLE.message} (${dependency})`,
  more: ErrorDetail[] = [],
): AppError {
  return new AppError('SERVICE_UNAVAILABLE', message, [{ field: 'dependency', problem: dependency }, ...more]);
}
