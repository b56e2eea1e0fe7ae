-- Firmware images (docs/jobs.md): what was uploaded, and its bytes in 1 MiB chunks
-- (store/pg/firmware-blobs.ts), so an upload or a download never holds a whole image in memory.
CREATE TABLE firmware (
  id uuid PRIMARY KEY,
  project_id uuid NOT NULL,
  name text NOT NULL,
  version text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX firmware_project ON firmware (project_id, created_at);

CREATE TABLE firmware_chunks (
  firmware_id uuid NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (firmware_id, seq)
);
