import { Router, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import type { Role } from '../../common/roles';
import type { Firmware } from '../../store/firmware';
import { userIdOf } from '../http/auth-context';
import { sendData, sendNoContent } from '../http/respond';
import { parseInput } from '../http/validate';
import { projectAccess } from '../access/project-access';
import { projectRecordAccess } from '../access/record-access';
import { storeFirmware } from '../firmware/upload';
import type { RouteDeps } from './route-deps';

export const uploadQuery = z.strictObject({
  projectId: z.uuid(),
  version: z.string().trim().min(1).max(64),
  name: z.string().trim().min(1).max(100),
});
export const listQuery = z.strictObject({ projectId: z.uuid() });
const uuid = z.uuid();
/** The newest jobs of the project a delete looks through for one still using the image. */
const JOBS_LOOKED_AT = 1000;

/**
 * Firmware images (DESIGN §13, docs/jobs.md): viewers read the records; editors upload and delete.
 * The upload's body is the image itself (`application/octet-stream`, at most FIRMWARE_MAX_BYTES);
 * a delete is refused (409) while a job that is not finished updates devices to it.
 */
export function firmwareRoutes({ config, stores }: Pick<RouteDeps, 'config' | 'stores'>): Router {
  const router = Router();

  async function firmwareFor(res: Response, firmwareId: string, needed: Role): Promise<Firmware> {
    const firmware = uuid.safeParse(firmwareId).success ? await stores.firmware.get(firmwareId) : null;
    if (!firmware) throw new AppError('FIRMWARE_NOT_FOUND');
    await projectRecordAccess(stores, userIdOf(res), firmware.projectId, needed, 'FIRMWARE_NOT_FOUND');
    return firmware;
  }

  router.post('/firmware', async (req, res) => {
    const query = parseInput(uploadQuery, req.query, 'query');
    const { project } = await projectAccess(stores, userIdOf(res), query.projectId, 'editor');
    if (!req.is('application/octet-stream')) {
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'A firmware image is sent as application/octet-stream');
    }
    const declared = Number(req.get('content-length') ?? 0);
    if (declared > config.FIRMWARE_MAX_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', `A firmware image is at most ${config.FIRMWARE_MAX_BYTES} bytes`);
    }
    const firmware = await storeFirmware(stores, {
      projectId: project.id,
      name: query.name,
      version: query.version,
      body: req,
      maxBytes: config.FIRMWARE_MAX_BYTES,
    });
    sendData(res, firmware, 201);
  });

  router.get('/firmware', async (req, res) => {
    const { projectId } = parseInput(listQuery, req.query, 'query');
    const { project } = await projectAccess(stores, userIdOf(res), projectId, 'viewer');
    sendData(res, { firmware: await stores.firmware.list(project.id) });
  });

  router.get('/firmware/:firmwareId', async (req, res) => {
    sendData(res, await firmwareFor(res, req.params.firmwareId, 'viewer'));
  });

  router.delete('/firmware/:firmwareId', async (req, res) => {
    const firmware = await firmwareFor(res, req.params.firmwareId, 'editor');
    const jobs = await stores.jobs.list(firmware.projectId, JOBS_LOOKED_AT);
    const using = jobs.find((job) => job.finishedAt === null && job.ota?.image.firmwareId === firmware.id);
    if (using)
      throw new AppError('CONFLICT', `Job ${using.id} (${using.state}) updates devices to this image; cancel it or wait for it to end`);
    await stores.firmware.remove(firmware.id);
    await stores.firmwareBlobs.remove(firmware.id);
    sendNoContent(res);
  });

  return router;
}
