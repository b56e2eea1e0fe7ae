import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access/project-access';
import { projectQuota } from '../access/quotas';
import type { RouteDeps } from './route-deps';

/** Roles that can be given; `owner` belongs to the project's creator alone. */
const grantable = z.enum(['admin', 'editor', 'viewer']);
export const addBody = z.object({ email: z.email(), role: grantable });
export const patchBody = z.object({ role: grantable });

/**
 * Project members (DESIGN §3): members read the list; admins add, change and remove; anyone may
 * leave. A removed member's open sockets leave the project's rooms on every node at once.
 */
export function memberRoutes({ config, stores, revocations }: Pick<RouteDeps, 'config' | 'stores' | 'revocations'>): Router {
  const router = Router();

  router.get('/projects/:projectId/members', async (req, res) => {
    const { project } = await projectAccess(stores, userIdOf(res), req.params.projectId, 'viewer');
    sendData(res, { members: await stores.members.list(project.id) });
  });

  router.post('/projects/:projectId/members', async (req, res) => {
    const { project } = await projectAccess(stores, userIdOf(res), req.params.projectId, 'admin');
    const body = parseInput(addBody, req.body, 'body');
    const user = await stores.users.findByEmail(body.email);
    if (!user) throw new AppError('USER_NOT_FOUND', 'No account has this email');
    const { quota } = await projectQuota(config, stores, project.id, 'members');
    if (!(await stores.members.add(project.id, user.id, body.role, quota))) {
      throw new AppError('CONFLICT', 'This user is already a member');
    }
    sendData(res, { userId: user.id, email: user.email, name: user.name, role: body.role }, 201);
  });

  router.patch('/projects/:projectId/members/:userId', async (req, res) => {
    const { project } = await projectAccess(stores, userIdOf(res), req.params.projectId, 'admin');
    const body = parseInput(patchBody, req.body, 'body');
    const current = await stores.projects.roleOf(project.id, req.params.userId);
    if (!current) throw new AppError('MEMBER_NOT_FOUND');
    if (current === 'owner') throw new AppError('FORBIDDEN', "The owner's role cannot be changed");
    await stores.members.setRole(project.id, req.params.userId, body.role);
    const member = (await stores.members.list(project.id)).find((m) => m.userId === req.params.userId);
    sendData(res, member);
  });

  router.delete('/projects/:projectId/members/:userId', async (req, res) => {
    const self = userIdOf(res) === req.params.userId;
    const { project } = await projectAccess(stores, userIdOf(res), req.params.projectId, self ? 'viewer' : 'admin');
    const current = await stores.projects.roleOf(project.id, req.params.userId);
    if (!current) throw new AppError('MEMBER_NOT_FOUND');
    if (current === 'owner') throw new AppError('FORBIDDEN', 'The owner cannot be removed; delete the project instead');
    await stores.members.remove(project.id, req.params.userId);
    // After the removal, so a subscribe racing it fails its access check instead of rejoining.
    await revocations.leaveProject(req.params.userId, project.id, await stores.projects.deviceIds(project.id));
    sendNoContent(res);
  });

  return router;
}
