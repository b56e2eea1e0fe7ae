import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError } from '../../common/errors';
import type { FirmwareBlobs } from '../../store/firmware-blobs';
import type { Firmware, FirmwareStore } from '../../store/firmware';

export interface FirmwareUpload {
  projectId: string;
  name: string;
  version: string;
  /** The request body, the image's bytes as they arrive. */
  body: Readable;
  maxBytes: number;
}

/**
 * Stores an uploaded image (DESIGN §13): its bytes streamed into the blob storage while their size
 * and SHA-256 are counted, then its record. A body past `maxBytes` or empty is refused with nothing
 * kept; a record that cannot be written takes its bytes back.
 */
export async function storeFirmware(
  { firmware, firmwareBlobs }: { firmware: FirmwareStore; firmwareBlobs: FirmwareBlobs },
  upload: FirmwareUpload,
): Promise<Firmware> {
  const id = randomUUID();
  const digest = createHash('sha256');
  let size = 0;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const piece of upload.body) {
      const chunk = Buffer.isBuffer(piece) ? piece : Buffer.from(piece as string);
      size += chunk.length;
      if (size > upload.maxBytes) throw new AppError('PAYLOAD_TOO_LARGE', `A firmware image is at most ${upload.maxBytes} bytes`);
      digest.update(chunk);
      yield chunk;
    }
    if (size === 0) throw new AppError('VALIDATION_ERROR', 'The image is empty', [{ field: 'body', problem: 'empty' }]);
  }
  await firmwareBlobs.put(id, counted());
  const record: Firmware = {
    id,
    projectId: upload.projectId,
    name: upload.name,
    version: upload.version,
    size,
    sha256: digest.digest('hex'),
    createdAt: new Date().toISOString(),
  };
  try {
    return await firmware.create(record);
  } catch (err) {
    await firmwareBlobs.remove(id).catch(() => undefined);
    throw err;
  }
}
