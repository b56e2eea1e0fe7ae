import { Router, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import type { Role } from '../../common/roles';
import type { StoredNotification } from '../../store/notifications';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectScope } from '../access/project-access';
import { projectRecordAccess } from '../access/record-access';
import type { RouteDeps } from './route-deps';

const uuid = z.uuid();

/** How deep a list read may page (docs/limits.md "Notifications"): every page costs at most this many ids per project. */
export const MAX_LIST_DEPTH = 10_000;

export const listQuery = z
  .strictObject({
    projectId: z.uuid().optional(),
    deviceId: z.uuid().optional(),
    /** SPEC §2.10's three types, and `device` for what devices send through the notify endpoints. */
    type: z.enum(['threshold', 'device_status', 'no_data', 'device']).optional(),
    unread: z
      .enum(['true', 'false'])
      .transform((v) => v === 'true')
      .optional(),
    page: z.coerce.number().int().min(1).default(1),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .refine((q) => q.page * q.limit <= MAX_LIST_DEPTH, { path: ['page'], message: `page × limit must be at most ${MAX_LIST_DEPTH}` });
export const scopeQuery = z.strictObject({ projectId: z.uuid().optional() });

/** `/notifications/{id}` is only a notification when the id is a UUID, so `/notifications/rules` stays the rules'. */
const notificationIdOnly: RequestHandler<{ notificationId: string }> = (req, _res, next) => {
  next(uuid.safeParse(req.params.notificationId).success ? undefined : 'route');
};

/** Notifications (SPEC §4.5, DESIGN §8): viewers read and mark read (for themselves); editors delete. */
export function notificationRoutes({ stores }: Pick<RouteDeps, 'stores'>): Router {
  const router = Router();

  const scope = (res: Response, projectId: string | undefined): Promise<string[]> => projectScope(stores, userIdOf(res), projectId);

  /** The stored record once the caller may act on it; `also` runs beside the access check (same round trip). */
  async function notificationFor<T>(
    res: Response,
    notificationId: string,
    needed: Role,
    also: (record: StoredNotification) => Promise<T>,
  ): Promise<T> {
    const record = await stores.notifications.get(notificationId);
    if (!record) throw new AppError('NOTIFICATION_NOT_FOUND');
    const [, result] = await Promise.all([
      projectRecordAccess(stores, userIdOf(res), record.projectId, needed, 'NOTIFICATION_NOT_FOUND'),
      also(record),
    ]);
    return result;
  }

  router.get('/notifications', async (req, res) => {
    const { projectId, page, limit, ...filter } = parseInput(listQuery, req.query, 'query');
    const found = await stores.notifications.list(userIdOf(res), await scope(res, projectId), filter, page, limit);
    sendData(res, { notifications: found.notifications, total: found.total, page, limit, unread: found.unread });
  });

  router.patch('/notifications/read-all', async (req, res) => {
    const { projectId } = parseInput(scopeQuery, req.query, 'query');
    sendData(res, { updated: await stores.notifications.markAllRead(userIdOf(res), await scope(res, projectId)) });
  });

  router.get('/notifications/:notificationId', notificationIdOnly, async (req, res) => {
    sendData(res, await notificationFor(res, req.params.notificationId, 'viewer', (r) => stores.notifications.readBy(r, userIdOf(res))));
  });

  /** Read state is the caller's own (docs/management-api.md): the other members still see it unread. */
  router.patch('/notifications/:notificationId/read', notificationIdOnly, async (req, res) => {
    const record = await notificationFor(res, req.params.notificationId, 'viewer', async (r) => r);
    const read = await stores.notifications.markRead(record, userIdOf(res));
    if (!read) throw new AppError('NOTIFICATION_NOT_FOUND');
    sendData(res, read);
  });

  router.delete('/notifications/:notificationId', notificationIdOnly, async (req, res) => {
    const record = await notificationFor(res, req.params.notificationId, 'editor', async (r) => r);
    if (!(await stores.notifications.delete(record))) throw new AppError('NOTIFICATION_NOT_FOUND');
    sendNoContent(res);
  });

  return router;
}
