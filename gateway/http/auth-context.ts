import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../../common/errors';
import type { SessionStore } from '../../store/sessions';

/** The bearer credential of a request, or null when the header is absent or not a bearer. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Requires a valid access token; the user's id is then available through `userIdOf(res)`. */
function requireUser(sessions: SessionStore): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req);
    if (!token) throw new AppError('UNAUTHORIZED', 'A bearer access token is required');
    const session = await sessions.resolve(token);
    if (!session) throw new AppError('UNAUTHORIZED', 'The access token is invalid or expired');
    res.locals.userId = session.userId;
    next();
  };
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
export function requireUserExceptPublic(sessions: SessionStore): RequestHandler {
  const check = requireUser(sessions);
  return (req, res, next) => {
    if (PUBLIC_MANAGEMENT_PATHS.some((p) => (p.method === '*' || p.method === req.method) && p.path.test(req.path))) {
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
