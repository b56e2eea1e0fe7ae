import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { commandView, COMMANDS_PER_DEVICE } from '../../store/commands';
import { deviceAccess } from '../access/project-access';
import { userIdOf } from '../http/auth-context';
import { sendData } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectRecordAccess } from '../access/record-access';
import type { RouteDeps } from './route-deps';

export const listQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(COMMANDS_PER_DEVICE).default(20) });
const uuid = z.uuid();

/** Commands with a receipt (docs/commands.md): whoever may read the device reads its commands. */
export function commandRoutes({ stores }: Pick<RouteDeps, 'stores'>): Router {
  const router = Router();

  router.get('/devices/:deviceId/commands', async (req, res) => {
    const { device } = await deviceAccess(stores, userIdOf(res), req.params.deviceId, 'viewer');
    const { limit } = parseInput(listQuery, req.query, 'query');
    const now = Date.now();
    sendData(res, { commands: (await stores.commands.recent(device.id, limit)).map((c) => commandView(c, now)) });
  });

  router.get('/commands/:commandId', async (req, res) => {
    const command = uuid.safeParse(req.params.commandId).success ? await stores.commands.get(req.params.commandId) : null;
    if (!command || !(await stores.devices.get(command.deviceId))) throw new AppError('COMMAND_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), command.projectId, 'viewer', 'COMMAND_NOT_FOUND');
    sendData(res, commandView(command));
  });

  return router;
}
