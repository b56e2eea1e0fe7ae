/**
 * Where firmware images' bytes live, behind one small interface (docs/jobs.md, "Firmware"): today
 * PostgreSQL (store/pg/firmware-blobs.ts); an object store can take its place without a change to
 * the routes. The record (name, version, size, sha256) is kept apart (store/firmware.ts).
 */
export interface FirmwareBlobs {
  /** Stores an image's bytes as `body` gives them; when `body` throws, nothing is kept and the error goes on. */
  put(id: string, body: AsyncIterable<Buffer>): Promise<void>;
  /** The image's bytes in order, a chunk at a time (never the whole image in memory). */
  read(id: string): AsyncIterable<Buffer>;
  remove(id: string): Promise<void>;
}
