import { Router, type Request } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { VERIFICATION_TTL_S } from '../../store/email-verifications';
import { userIdOf } from '../http/auth-context';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import type { RouteDeps } from './route-deps';
import { createVerifyMailer } from '../mail/verify-mail';

export const verifyEmailBody = z.object({ token: z.string().min(1).max(200) });

const badToken = () =>
  new AppError('VALIDATION_ERROR', 'The verify link is unknown, used or expired', [
    { field: 'body.token', problem: 'unknown, used or expired' },
  ]);

/**
 * Email verification (DESIGN §11): the caller asks for a link to their own address (bearer, once a
 * minute); whoever opens it verifies that address, without signing in (the one-time token is the
 * credential). Notification email goes only to verified addresses.
 */
export function verifyEmailRoutes({ config, stores }: Pick<RouteDeps, 'config' | 'stores'>): Router {
  const router = Router();
  const send = createVerifyMailer(config);
  /** The console's page that takes the token: PUBLIC_URL, else the origin the request came to (the link goes only to the caller). */
  const linkFor = (req: Request, token: string) => {
    const origin = config.PUBLIC_URL?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    return `${origin}/verify-email?token=${encodeURIComponent(token)}`;
  };

  router.post('/auth/verify-email/request', async (req, res) => {
    const user = await stores.users.get(userIdOf(res));
    if (!user) throw new AppError('UNAUTHORIZED', 'The account no longer exists');
    if (user.emailVerified) throw new AppError('CONFLICT', 'The email is verified already');
    if (!send) throw new AppError('CONFLICT', 'This service sends no email (SMTP_URL is not set), so there is nothing to verify');
    const slot = await stores.emailVerifications.claimSend(user.id);
    if (!slot.allowed) {
      res.setHeader('Retry-After', String(slot.retryAfterS));
      throw new AppError('RATE_LIMIT_EXCEEDED', 'A verify email went out less than a minute ago');
    }
    const token = await stores.emailVerifications.issue({ userId: user.id, email: user.email });
    await send(user.email, linkFor(req, token));
    sendData(res, { email: user.email, expiresAt: new Date(Date.now() + VERIFICATION_TTL_S * 1000).toISOString() });
  });

  router.post('/auth/verify-email', async (req, res) => {
    const { token } = parseInput(verifyEmailBody, req.body, 'body');
    const pending = await stores.emailVerifications.consume(token);
    const user = pending ? await stores.users.get(pending.userId) : null;
    // A link sent to an address the account no longer has verifies nothing.
    if (!pending || !user || user.email !== pending.email) throw badToken();
    await stores.users.markEmailVerified(user.id, pending.email);
    sendData(res, { id: user.id, email: user.email, emailVerified: true });
  });

  return router;
}
