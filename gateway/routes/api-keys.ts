import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { userQuota } from '../access/quotas';
import type { RouteDeps } from './route-deps';

export const createBody = z.object({
  name: z.string().trim().min(1).max(100),
  expiresAt: z.iso
    .datetime({ offset: true })
    .refine((v) => Date.parse(v) > Date.now(), 'must be in the future')
    .optional(),
});

/** User API keys for the external REST interface (DESIGN §2): the key is shown once. */
export function apiKeyRoutes({ config, stores }: Pick<RouteDeps, 'config' | 'stores'>): Router {
  const router = Router();

  router.post('/api-keys', async (req, res) => {
    const body = parseInput(createBody, req.body, 'body');
    const expiresAt = body.expiresAt ? new Date(body.expiresAt).toISOString() : null;
    const userId = userIdOf(res);
    const quota = await userQuota(config, stores, userId, 'apiKeys');
    const { apiKey, key } = await stores.apiKeys.create(userId, body.name, expiresAt, quota);
    sendData(res, { id: apiKey.id, name: apiKey.name, key, createdAt: apiKey.createdAt, expiresAt: apiKey.expiresAt }, 201);
  });

  router.get('/api-keys', async (_req, res) => {
    const apiKeys = await stores.apiKeys.list(userIdOf(res));
    sendData(res, { apiKeys: apiKeys.map(({ userId: _userId, ...shown }) => shown) });
  });

  router.delete('/api-keys/:keyId', async (req, res) => {
    if (!(await stores.apiKeys.revoke(userIdOf(res), req.params.keyId))) throw new AppError('API_KEY_NOT_FOUND');
    sendNoContent(res);
  });

  return router;
}
