import { Router } from 'express';
import { z } from 'zod';
import { hashPassword, verifyPassword } from '../../common/credentials';
import { AppError } from '../../common/errors';
import { publicUser } from '../../store/users';
import { bearerToken, userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { quotaReport } from '../access/quotas';
import type { RouteDeps } from './route-deps';

export const registerBody = z.object({
  email: z.email().max(254),
  password: z.string().min(8).max(256),
  name: z.string().trim().min(1).max(100).optional(),
});

export const loginBody = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(256),
});

/** A hash to verify against when the email is unknown, so a login takes as long either way. */
let decoyHash: Promise<string> | null = null;

/** Accounts (DESIGN §2): register, login, logout (which also disconnects the session's sockets on every node), me. */
export function authRoutes({ config, stores, revocations }: Pick<RouteDeps, 'config' | 'stores' | 'revocations'>): Router {
  const router = Router();
  /** Checked before scrypt runs, so wrong passwords cannot make login a CPU sink (docs/api.md). */
  const loginLimits = {
    perAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
    perAddress: config.LOGIN_MAX_FAILURES_PER_ADDRESS,
    windowS: config.LOGIN_FAILURE_WINDOW_S,
  };
  const registerLimits = { perAddress: config.REGISTER_MAX_PER_ADDRESS, windowS: config.REGISTER_WINDOW_S };

  router.post('/auth/register', async (req, res) => {
    const body = parseInput(registerBody, req.body, 'body');
    // Counted before scrypt runs, per client address (docs/limits.md "Register and login throttles").
    const attempt = await stores.registerThrottle.attempt(req.ip ?? 'unknown', registerLimits);
    if (!attempt.allowed) {
      res.setHeader('Retry-After', String(attempt.retryAfterS));
      throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many registrations from this address; try again later');
    }
    const passwordHash = await hashPassword(body.password, config.PASSWORD_HASH_COST);
    const user = await stores.users.create({
      email: body.email,
      name: body.name ?? null,
      plan: config.DEFAULT_PLAN,
      passwordHash,
    });
    if (!user) throw new AppError('CONFLICT', 'An account with this email exists');
    const session = await stores.sessions.issue(user.id);
    const { createdAt: _createdAt, ...shown } = publicUser(user);
    sendData(res, { user: shown, ...session }, 201);
  });

  router.post('/auth/login', async (req, res) => {
    const body = parseInput(loginBody, req.body, 'body');
    const [user, attempt] = await Promise.all([
      stores.users.findByEmail(body.email),
      stores.loginThrottle.attempt(body.email, req.ip ?? 'unknown', loginLimits),
    ]);
    if (!attempt.allowed) {
      res.setHeader('Retry-After', String(attempt.retryAfterS));
      throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many failed logins; try again later');
    }
    decoyHash ??= hashPassword('decoy-password', config.PASSWORD_HASH_COST);
    const valid = await verifyPassword(body.password, user?.passwordHash ?? (await decoyHash));
    if (!user || !valid) throw new AppError('INVALID_CREDENTIALS');
    const [session] = await Promise.all([stores.sessions.issue(user.id), attempt.succeeded()]);
    const { createdAt: _createdAt, ...shown } = publicUser(user);
    sendData(res, { user: shown, ...session });
  });

  router.post('/auth/logout', async (req, res) => {
    const token = bearerToken(req);
    if (token) await revocations.endSession(await stores.sessions.revoke(token));
    sendNoContent(res);
  });

  router.get('/auth/me', async (_req, res) => {
    const user = await stores.users.get(userIdOf(res));
    if (!user) throw new AppError('UNAUTHORIZED', 'The account no longer exists');
    sendData(res, { ...publicUser(user), quotas: await quotaReport(config, stores, user.id, user.plan) });
  });

  return router;
}
