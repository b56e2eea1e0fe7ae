import { Router } from 'express';
import { z } from 'zod';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access/project-access';
import { userQuota } from '../access/quotas';
import type { RouteDeps } from './route-deps';

const name = z.string().trim().min(1).max(100);
const description = z.string().max(1000);

export const createBody = z.object({ name, description: description.default('') });
export const patchBody = z
  .object({ name: name.optional(), description: description.optional() })
  .refine((b) => b.name !== undefined || b.description !== undefined, 'name or description is required');

/** Projects (SPEC §4.1): every member reads; admins edit; only the owner deletes. */
export function projectRoutes(deps: Pick<RouteDeps, 'config' | 'stores' | 'carryOutNow'>): Router {
  const { stores } = deps;
  const router = Router();

  router.get('/projects', async (_req, res) => {
    sendData(res, { projects: await stores.projects.listFor(userIdOf(res)) });
  });

  router.post('/projects', async (req, res) => {
    const body = parseInput(createBody, req.body, 'body');
    const userId = userIdOf(res);
    const quota = await userQuota(deps.config, stores, userId, 'projects');
    sendData(res, await stores.projects.create(userId, body.name, body.description, quota), 201);
  });

  router.get('/projects/:projectId', async (req, res) => {
    const { project, role } = await projectAccess(stores, userIdOf(res), req.params.projectId, 'viewer');
    sendData(res, await stores.projects.view(project, role));
  });

  router.patch('/projects/:projectId', async (req, res) => {
    const { project, role } = await projectAccess(stores, userIdOf(res), req.params.projectId, 'admin');
    const body = parseInput(patchBody, req.body, 'body');
    await stores.projects.update(project.id, body);
    const updated = { ...project, ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) };
    sendData(res, await stores.projects.view(updated, role));
  });

  router.delete('/projects/:projectId', async (req, res) => {
    const { project } = await projectAccess(stores, userIdOf(res), req.params.projectId, 'owner');
    await deps.carryOutNow(await stores.projects.delete(project.id));
    sendNoContent(res);
  });

  return router;
}
