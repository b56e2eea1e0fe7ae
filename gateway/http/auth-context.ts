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
export function requireUser(sessions: SessionStore): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req);
    if (!token) throw new AppError('UNAUTHORIZED', 'A bearer access token is required');
    const session = await sessions.resolve(token);
    if (!session) throw new AppError('UNAUTHORIZED', 'The access token is invalid or expired');
    res.locals.userId = session.userId;
    next();
  };
}

export function userIdOf(res: Response): string {
  const userId: unknown = res.locals.userId;
  if (typeof userId !== 'string') throw new AppError('UNAUTHORIZED');
  return userId;
}
