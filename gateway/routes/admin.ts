import { timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { PLANS } from '../../common/plans';
import { hashSecret } from '../../common/credentials';
import { AppError } from '../../common/errors';
import { bearerToken } from '../http/auth-context';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import type { RouteDeps } from './route-deps';

export const planBody = z.object({ plan: z.enum(PLANS) });
const userParams = z.object({ userId: z.uuid() });

/** Compares hashes, so the comparison takes the same time whatever the lengths. */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(hashSecret(a), 'hex'), Buffer.from(hashSecret(b), 'hex'));
}

/** Operator endpoints, behind the ADMIN_TOKEN from the environment (off when it is not set). */
export function adminRoutes({ config, stores }: Pick<RouteDeps, 'config' | 'stores'>): Router {
  const router = Router();
  const requireAdmin: RequestHandler = (req, _res, next) => {
    const token = bearerToken(req);
    if (!config.ADMIN_TOKEN || !token || !sameSecret(token, config.ADMIN_TOKEN)) {
      throw new AppError('UNAUTHORIZED', 'The admin token is required');
    }
    next();
  };

  router.put('/admin/users/:userId/plan', requireAdmin, async (req, res) => {
    const params = userParams.safeParse(req.params);
    if (!params.success) throw new AppError('USER_NOT_FOUND');
    const { plan } = parseInput(planBody, req.body, 'body');
    if (!(await stores.users.setPlan(params.data.userId, plan))) throw new AppError('USER_NOT_FOUND');
    sendData(res, { id: params.data.userId, plan });
  });

  return router;
}
