import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { API_KEY_PREFIX, type ApiKeyStore } from '../../store/api-keys';
import type { SessionStore } from '../../store/sessions';

/** The bearer credential of a request, or null when the header is absent or not a bearer. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * What an API key may not do on the management API (DESIGN §2): manage API keys, log out or change
 * the account. A key automates a user's projects; it cannot make more keys or outlive its revocation.
 */
export const SESSION_ONLY_PATHS: readonly { method: string; path: RegExp }[] = [
  { method: 'POST', path: /^\/api-keys\/?$/ },
  { method: 'DELETE', path: /^\/api-keys\/[^/]+\/?$/ },
  { method: 'POST', path: /^\/auth\/logout\/?$/ },
  { method: 'POST', path: /^\/auth\/verify-email\/request\/?$/ },
];

const matches = (paths: readonly { method: string; path: RegExp }[], req: Request): boolean =>
  paths.some((p) => (p.method === '*' || p.method === req.method) && p.path.test(req.path));

/**
 * Requires a valid access token, or an API key (`Bearer dds_…`, on every plan, with its owner's
 * roles); the user's id is then available through `userIdOf(res)`. A key's lastUsedAt is
 * refreshed as on the external interface.
 */
function requireUser({ sessions, apiKeys, logger }: UserCredentials): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req);
    if (!token) throw new AppError('UNAUTHORIZED', 'A bearer access token is required');
    if (token.startsWith(API_KEY_PREFIX)) {
      const apiKey = await apiKeys.resolve(token);
      if (!apiKey) throw new AppError('UNAUTHORIZED', 'The API key is invalid, revoked or expired');
      if (matches(SESSION_ONLY_PATHS, req))
        throw new AppError('FORBIDDEN', 'An API key cannot manage API keys, log out or change the account: log in');
      apiKeys.touch(apiKey, new Date()).catch((err: unknown) => logger.warn({ err, keyId: apiKey.id }, 'lastUsedAt not recorded'));
      res.locals.userId = apiKey.userId;
      next();
      return;
    }
    const session = await sessions.resolve(token);
    if (!session) throw new AppError('UNAUTHORIZED', 'The access token is invalid or expired');
    res.locals.userId = session.userId;
    next();
  };
}

/** What the management API checks a bearer credential against. */
export interface UserCredentials {
  sessions: SessionStore;
  apiKeys: ApiKeyStore;
  logger: Logger;
}

/**
 * The management API paths (under /api/v1) that take no user access token: creating an account and
 * logging in, verifying an email (its one-time token is the credential), and the operator endpoints,
 * which check the ADMIN_TOKEN themselves. Every other path
 * there, unknown ones included, needs a valid bearer access token. Method '*': any method.
 */
export const PUBLIC_MANAGEMENT_PATHS: readonly { method: string; path: RegExp }[] = [
  { method: 'POST', path: /^\/auth\/register\/?$/ },
  { method: 'POST', path: /^\/auth\/login\/?$/ },
  { method: 'POST', path: /^\/auth\/verify-email\/?$/ },
  { method: '*', path: /^\/admin\// },
];

/** The bearer check of the management API, mounted once in front of all its routers. */
export function requireUserExceptPublic(credentials: UserCredentials): RequestHandler {
  const check = requireUser(credentials);
  return (req, res, next) => {
    if (matches(PUBLIC_MANAGEMENT_PATHS, req)) {
      next();
      return;
    }
    return check(req, res, next);
  };
}

export function userIdOf(res: Response): string {
  const userId: unknown = res.locals.userId;
  if (typeof userId !== 'string') throw new AppError('UNAUTHORIZED');
  return userId;
}
