import { Router } from 'express';
import { z } from 'zod';
import { AppError } from '../../common/errors';
import { parseInput } from '../http/validate';
import type { RouteDeps } from '../routes/route-deps';

export const downloadQuery = z.strictObject({ token: z.string().min(1).max(200) });
const uuid = z.uuid();

/**
 * A device's firmware download (DESIGN §13, docs/jobs.md "Downloads"): `GET
 * /external/api/firmware/{firmwareId}?token=` with the token its OTA message carried, valid for
 * that device's job for the job's TTL and for that image only. The image streams chunk by chunk.
 */
export function firmwareDownloadRoutes({ stores }: Pick<RouteDeps, 'stores'>): Router {
  const router = Router();

  router.get('/firmware/:firmwareId', async (req, res) => {
    const { token } = parseInput(downloadQuery, req.query, 'query');
    const grant = await stores.otaTokens.grantOf(token);
    if (!grant || !uuid.safeParse(req.params.firmwareId).success || grant.firmwareId !== req.params.firmwareId) {
      throw new AppError('INVALID_TOKEN', 'The download token is invalid, expired or for another image');
    }
    const firmware = await stores.firmware.get(grant.firmwareId);
    if (!firmware) throw new AppError('FIRMWARE_NOT_FOUND');
    const chunks = stores.firmwareBlobs.read(firmware.id);
    // The first chunk is read before the headers go, so a failing storage is still an error answer.
    const first = await chunks[Symbol.asyncIterator]().next();
    res.status(200).set({
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(firmware.size),
      'X-Firmware-Sha256': firmware.sha256,
      'X-Firmware-Version': firmware.version,
    });
    try {
      if (!first.done) res.write(first.value);
      for await (const chunk of chunks) {
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      }
      res.end();
    } catch (err) {
      // Headers are gone: the device sees a cut download (shorter than Content-Length) and tries again.
      res.destroy();
      throw err;
    }
  });

  return router;
}
