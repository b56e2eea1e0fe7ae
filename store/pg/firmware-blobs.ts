import type { FirmwareBlobs } from '../firmware-blobs';
import type { Pool } from './pool';
import { inTransaction } from './transaction';
import { withPostgres } from './unavailable';

/** The size of one stored chunk: an upload or a download holds about this much at a time. */
export const CHUNK_BYTES = 1024 * 1024;

/** Regroups a stream of buffers of any size into CHUNK_BYTES pieces (the last one shorter). */
async function* rechunked(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (const piece of body) {
    parts.push(piece);
    held += piece.length;
    while (held >= CHUNK_BYTES) {
      const all = Buffer.concat(parts);
      yield all.subarray(0, CHUNK_BYTES);
      parts = [all.subarray(CHUNK_BYTES)];
      held = all.length - CHUNK_BYTES;
    }
  }
  if (held > 0) yield Buffer.concat(parts);
}

/** Firmware images in PostgreSQL, one row per 1 MiB chunk (table firmware_chunks, migration 0004), written in one transaction. */
export function createPgFirmwareBlobs(pool: Pool): FirmwareBlobs {
  return {
    async put(id, body) {
      await withPostgres(() =>
        inTransaction(pool, async (client) => {
          let seq = 0;
          for await (const chunk of rechunked(body)) {
            await client.query('INSERT INTO firmware_chunks (firmware_id, seq, data) VALUES ($1, $2, $3)', [id, seq++, chunk]);
          }
        }),
      );
    },
    async *read(id) {
      for (let seq = 0; ; seq++) {
        const { rows } = await withPostgres(() =>
          pool.query<{ data: Buffer }>('SELECT data FROM firmware_chunks WHERE firmware_id = $1 AND seq = $2', [id, seq]),
        );
        const row = rows[0];
        if (!row) return;
        yield row.data;
      }
    },
    async remove(id) {
      await withPostgres(() => pool.query('DELETE FROM firmware_chunks WHERE firmware_id = $1', [id]));
    },
  };
}
