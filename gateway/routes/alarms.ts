import { Router, type Response } from 'express';
import { z } from 'zod';
import { ALARM_SEVERITIES, type Alarm } from '../../common/contracts';
import { AppError } from '../../common/errors';
import type { Role } from '../../common/roles';
import type { AlarmChange } from '../../store/alarms';
import { projectScope } from '../access/project-access';
import { userIdOf } from '../http/auth-context';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectRecordAccess } from '../access/record-access';
import type { RouteDeps } from './route-deps';

export const listQuery = z.strictObject({
  projectId: z.uuid().optional(),
  deviceId: z.uuid().optional(),
  severity: z.enum(ALARM_SEVERITIES).optional(),
  state: z.enum(['active', 'cleared']).optional(),
  page: z.coerce.number().int().min(1).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/**
 * Alarms (docs/alarms.md): roles as for notifications, viewers read, editors and up acknowledge
 * and clear. An alarm of a project the caller is not in is a 404. Acknowledging or clearing again
 * is a 200 that changes nothing.
 */
export function alarmRoutes({ stores }: Pick<RouteDeps, 'stores'>): Router {
  const router = Router();

  async function alarmFor(res: Response, alarmId: string, needed: Role): Promise<Alarm> {
    const alarm = await stores.alarms.get(alarmId);
    if (!alarm) throw new AppError('ALARM_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), alarm.projectId, needed, 'ALARM_NOT_FOUND');
    return alarm;
  }

  /** Answers with the alarm after a change (whose step published its `alarm` event when it did change). */
  function answer(res: Response, change: AlarmChange | null): void {
    if (!change) throw new AppError('ALARM_NOT_FOUND');
    sendData(res, change.alarm);
  }

  router.get('/alarms', async (req, res) => {
    const { projectId, page, limit, ...filter } = parseInput(listQuery, req.query, 'query');
    const found = await stores.alarms.list(await projectScope(stores, userIdOf(res), projectId), filter, page, limit);
    sendData(res, { alarms: found.alarms, total: found.total, page, limit });
  });

  router.get('/alarms/:alarmId', async (req, res) => {
    sendData(res, await alarmFor(res, req.params.alarmId, 'viewer'));
  });

  router.post('/alarms/:alarmId/acknowledge', async (req, res) => {
    const alarm = await alarmFor(res, req.params.alarmId, 'editor');
    answer(res, await stores.alarms.acknowledge(alarm.deviceId, alarm.ruleId, userIdOf(res), new Date().toISOString()));
  });

  /** A clear by hand also forgets the rule's edge state: a value still inside raises the alarm anew. */
  router.post('/alarms/:alarmId/clear', async (req, res) => {
    const alarm = await alarmFor(res, req.params.alarmId, 'editor');
    answer(res, await stores.alarms.clear(alarm.deviceId, alarm.ruleId, new Date().toISOString(), true));
  });

  return router;
}
